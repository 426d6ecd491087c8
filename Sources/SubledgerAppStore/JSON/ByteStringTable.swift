/// A fixed map from short byte strings (JSON member names, enum raw values) to values.
///
/// Lookups hash the bytes once (FNV-1a) and compare at most a few candidates byte by byte, so the
/// decoders can dispatch on a member name straight from the input buffer without making a String.
/// Keys live in one contiguous array so a lookup touches no reference-counted storage per entry.
struct ByteStringTable<Value: Sendable>: Sendable {
    private struct Entry {
        var hash: UInt32
        var keyStart: Int
        var keyCount: Int
    }

    private let slots: [Int]  // entry index + 1; 0 marks an empty slot
    private let mask: Int
    private let entries: [Entry]
    private let keyBytes: [UInt8]
    private let values: [Value]

    init(_ pairs: [(key: String, value: Value)]) {
        var size = 8
        while size < pairs.count * 3 {
            size *= 2
        }
        var slots = [Int](repeating: 0, count: size)
        var entries: [Entry] = []
        var keyBytes: [UInt8] = []
        for (number, pair) in pairs.enumerated() {
            let key = Array(pair.key.utf8)
            let hash = key.withUnsafeBufferPointer { Self.hash($0) }
            var slot = Int(hash) & (size - 1)
            while slots[slot] != 0 {
                let other = entries[slots[slot] - 1]
                precondition(
                    !keyBytes[other.keyStart..<other.keyStart + other.keyCount].elementsEqual(key),
                    "duplicate key \(pair.key)")
                slot = (slot + 1) & (size - 1)
            }
            slots[slot] = number + 1
            entries.append(Entry(hash: hash, keyStart: keyBytes.count, keyCount: key.count))
            keyBytes += key
        }
        self.slots = slots
        self.mask = size - 1
        self.entries = entries
        self.keyBytes = keyBytes
        self.values = pairs.map(\.value)
    }

    func value(for bytes: UnsafeBufferPointer<UInt8>) -> Value? {
        let hash = Self.hash(bytes)
        return keyBytes.withUnsafeBufferPointer { keyBytes in
            slots.withUnsafeBufferPointer { slots in
                entries.withUnsafeBufferPointer { entries in
                    var slot = Int(hash) & mask
                    while true {
                        let number = slots[slot] - 1
                        if number < 0 {
                            return nil
                        }
                        let entry = entries[number]
                        if entry.hash == hash && entry.keyCount == bytes.count
                            && Self.equal(
                                UnsafeBufferPointer(
                                    rebasing: keyBytes[entry.keyStart..<entry.keyStart + entry.keyCount]), bytes)
                        {
                            return values[number]
                        }
                        slot = (slot + 1) & mask
                    }
                }
            }
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
    private static func equal(_ key: UnsafeBufferPointer<UInt8>, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in 0..<key.count where key[index] != bytes[index] {
            return false
        }
        return true
    }
}
