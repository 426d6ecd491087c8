/// SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", 2014):
/// spreads one 64-bit seed into well-mixed words. It seeds the simulator's generator, and
/// makes tests' random data reproducible.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    public init(_ seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
