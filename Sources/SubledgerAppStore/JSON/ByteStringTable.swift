/// A fixed map from short byte strings (JSON member names, enum raw values) to values.
///
/// Lookups hash the bytes once (FNV-1a) and compare at most a few candidates byte by byte, so the
/// decoders can dispatch on a member name straight from the input buffer without making a String.
struct ByteStringTable<Value: Sendable>: Sendable {
    private let slots: [Int]  // entry index + 1; 0 marks an empty slot
    private let mask: Int
    private let entryHashes: [UInt32]
    private let entryKeys: [[UInt8]]
    private let entryValues: [Value]

    init(_ entries: [(key: String, value: Value)]) {
        var size = 8
        while size < entries.count * 3 {
            size *= 2
        }
        var slots = [Int](repeating: 0, count: size)
        var hashes: [UInt32] = []
        var keys: [[UInt8]] = []
        for (number, entry) in entries.enumerated() {
            let key = Array(entry.key.utf8)
            let hash = key.withUnsafeBufferPointer { Self.hash($0) }
            var slot = Int(hash) & (size - 1)
            while slots[slot] != 0 {
                precondition(keys[slots[slot] - 1] != key, "duplicate key \(entry.key)")
                slot = (slot + 1) & (size - 1)
            }
            slots[slot] = number + 1
            hashes.append(hash)
            keys.append(key)
        }
        self.slots = slots
        self.mask = size - 1
        self.entryHashes = hashes
        self.entryKeys = keys
        self.entryValues = entries.map(\.value)
    }

    func value(for bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        let hash = Self.hash(bytes)
        var slot = Int(hash) & mask
        while true {
            let entry = slots[slot] - 1
            if entry < 0 {
                return nil
            }
            if entryHashes[entry] == hash && Self.equal(entryKeys[entry], bytes) {
                return entryValues[entry]
            }
            slot = (slot + 1) & mask
        }
    }

    @inline(__always)
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt32 {
        var hash: UInt32 = 2_166_136_261
        for byte in bytes {
            hash = (hash ^ UInt32(byte)) &* 16_777_619
        }
        return hash
    }

    @inline(__always)
    private static func equal(_ key: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard key.count == bytes.count else {
            return false
        }
        return key.withUnsafeBufferPointer { key in
            for index in 0..<key.count where key[index] != bytes[index] {
                return false
            }
            return true
        }
    }
}
