/// SplitMix64: small, fast and reproducible from one seed; each target draws from its own.
struct Random {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { n <= 1 ? 0 : Int(next() % UInt64(n)) }

    mutating func chance(_ oneIn: Int) -> Bool { below(oneIn) == 0 }

    mutating func element<T>(_ array: [T]) -> T { array[below(array.count)] }

    mutating func bytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: next()) }
    }

    /// A generator whose stream depends only on `bytes` (libFuzzer inputs must replay exactly).
    init(hashing bytes: UnsafeRawBufferPointer) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
        state = hash
    }

    init(state: UInt64) {
        self.state = state
    }
}

/// One to four random edits: flip a bit, set an interesting byte, delete, duplicate, truncate or
/// insert a byte.
func mutate(_ input: [UInt8], _ random: inout Random) -> [UInt8] {
    var bytes = input
    for _ in 0...random.below(4) {
        guard !bytes.isEmpty else { return [UInt8(truncatingIfNeeded: random.next())] }
        let at = random.below(bytes.count)
        switch random.below(6) {
        case 0: bytes[at] ^= UInt8(1 << random.below(8))
        case 1: bytes[at] = random.element([0, 0xFF, 0x7F, 0x80, 0x22, 0x5C, 0x2E, 0x7B, 0x7D, 0x30, 0x0D, 0x0A, 0x3D])
        case 2: bytes.remove(at: at)
        case 3: bytes.insert(contentsOf: bytes[at..<min(bytes.count, at + 1 + random.below(16))], at: at)
        case 4: bytes.removeSubrange(at...)
        default: bytes.insert(UInt8(truncatingIfNeeded: random.next()), at: at)
        }
    }
    return bytes
}
