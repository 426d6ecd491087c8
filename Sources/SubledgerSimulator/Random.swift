import SubledgerCore

/// xoshiro256** 1.0 (Blackman & Vigna): the simulator's only source of randomness.
///
/// Every draw, including the integer and floating-point helpers, is defined here rather than by
/// the standard library (whose generator is system entropy and whose `random(in:using:)`
/// algorithms may change between toolchains), so a seed names the same workload everywhere.
/// Each customer and the delivery schedule draw from their own stream, which keeps customers
/// independent of each other and of the delivery options.
struct Xoshiro256 {
    private var s0, s1, s2, s3: UInt64

    init(seed: UInt64, stream: UInt64) {
        var mixer = SplitMix64(seed ^ (stream &* 0xD1B5_4A32_D192_ED03))
        s0 = mixer.next()
        s1 = mixer.next()
        s2 = mixer.next()
        s3 = mixer.next()
    }

    mutating func next() -> UInt64 {
        let result = rotateLeft(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = rotateLeft(s3, 45)
        return result
    }

    /// Uniform in `0..<bound` (Lemire's multiply-and-reject, unbiased).
    mutating func below(_ bound: UInt64) -> UInt64 {
        precondition(bound > 0, "below(_:) needs a positive bound")
        var product = next().multipliedFullWidth(by: bound)
        if product.low < bound {
            let threshold = (0 &- bound) % bound
            while product.low < threshold {
                product = next().multipliedFullWidth(by: bound)
            }
        }
        return product.high
    }

    /// Uniform in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(below(UInt64(range.upperBound - range.lowerBound) + 1))
    }

    /// Uniform in `[0, 1)` with 53 random bits.
    mutating func unit() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// True with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool {
        unit() < probability
    }

    /// An index drawn with probability proportional to `weights[index]`.
    mutating func weightedIndex(_ weights: [Double]) -> Int {
        let total = weights.reduce(0, +)
        var target = unit() * total
        for (index, weight) in weights.enumerated() {
            if target < weight { return index }
            target -= weight
        }
        return weights.count - 1
    }

    /// A random (version 4) UUID in lowercase canonical text.
    mutating func uuid() -> String {
        var bytes = [UInt8](repeating: 0, count: 16)
        let high = next(), low = next()
        for index in 0..<8 {
            bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64(index)))
            bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64(index)))
        }
        bytes[6] = bytes[6] & 0x0F | 0x40
        bytes[8] = bytes[8] & 0x3F | 0x80
        let hex = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for (index, byte) in bytes.enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}

private func rotateLeft(_ value: UInt64, _ count: UInt64) -> UInt64 {
    (value << count) | (value >> (64 - count))
}
