#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Interned strings: every product id, currency, storefront and Apple value the timelines keep is
/// stored once and referred to by a small id, so timelines stay compact and compare by integer.
///
/// Ids are handed out in order of first appearance, starting at 1 (0 means "absent"); folding the
/// same log therefore gives the same ids, which keeps snapshots byte-identical. Look-ups hash the
/// UTF-8 bytes in place, so interning a string that is already known allocates nothing.
struct StringTable: Sendable {
    private(set) var strings: [String] = [""]
    /// The UTF-8 of every string, back to back; `ranges[id]` locates one.
    private var arena: [UInt8] = []
    private var ranges: [Range<Int>] = [0..<0]
    /// Open addressing over ids (0 = empty slot); the capacity is a power of two.
    private var slots: [UInt32] = Array(repeating: 0, count: 64)
    /// `TextRef.knownValueCode` → id (0 = not interned yet); filled by `intern(_: TextRef)`.
    var knownValueIDs: [UInt32] = []
    /// The last number interned by `intern(_: TextRef)` and its id (0 = none yet).
    var lastNumber: (value: UInt64, id: UInt32) = (0, 0)
    /// The id of the last text `intern(_: TextRef)` interned from its bytes (0 = none yet).
    var lastText: UInt32 = 0

    var count: Int { strings.count - 1 }

    func string(_ id: UInt32) -> String {
        strings[Int(id)]
    }

    /// The id of `bytes`, adding them when new.
    mutating func intern(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
        let hash = Self.hash(bytes)
        var slot = Int(truncatingIfNeeded: hash) & (slots.count - 1)
        while true {
            let id = slots[slot]
            if id == 0 { break }
            if matches(id, bytes) { return id }
            slot = (slot + 1) & (slots.count - 1)
        }
        let id = UInt32(strings.count)
        let start = arena.count
        arena.append(contentsOf: bytes)
        ranges.append(start..<arena.count)
        strings.append(String(decoding: bytes, as: UTF8.self))
        slots[slot] = id
        if strings.count * 2 > slots.count { grow() }
        return id
    }

    mutating func intern(_ string: String) -> UInt32 {
        var string = string
        return string.withUTF8 { intern(UnsafeRawBufferPointer($0)) }
    }

    /// The id of `bytes` if they were interned, without adding them.
    func lookUp(_ bytes: UnsafeRawBufferPointer) -> UInt32? {
        var slot = Int(truncatingIfNeeded: Self.hash(bytes)) & (slots.count - 1)
        while true {
            let id = slots[slot]
            if id == 0 { return nil }
            if matches(id, bytes) { return id }
            slot = (slot + 1) & (slots.count - 1)
        }
    }

    func lookUp(_ string: String) -> UInt32? {
        var string = string
        return string.withUTF8 { lookUp(UnsafeRawBufferPointer($0)) }
    }

    func matches(_ id: UInt32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        let range = ranges[Int(id)]
        guard range.count == bytes.count else { return false }
        return arena.withUnsafeBytes { arena in
            bytes.count == 0 || memcmp(arena.baseAddress! + range.lowerBound, bytes.baseAddress!, bytes.count) == 0
        }
    }

    private mutating func grow() {
        var bigger = [UInt32](repeating: 0, count: slots.count * 2)
        let mask = bigger.count - 1
        arena.withUnsafeBytes { arena in
            for id in 1..<strings.count {
                let range = ranges[id]
                var slot = Int(truncatingIfNeeded: Self.hash(UnsafeRawBufferPointer(rebasing: arena[range]))) & mask
                while bigger[slot] != 0 { slot = (slot + 1) & mask }
                bigger[slot] = UInt32(id)
            }
        }
        slots = bigger
    }

    /// Eight bytes per multiply (then the tail byte by byte): product ids and the like are
    /// hashed on every replayed event, and a byte-at-a-time hash showed in profiles.
    private static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
        var offset = 0
        while offset + 8 <= bytes.count {
            hash = (hash ^ bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
            hash ^= hash >> 32
            offset += 8
        }
        while offset < bytes.count {
            hash = (hash ^ UInt64(bytes[offset])) &* 0x0000_0100_0000_01b3
            offset += 1
        }
        return hash ^ (hash >> 29)
    }
}
