/// Bytes received on a connection and not yet consumed by the parser; indices are relative to
/// the first unconsumed byte.
package struct InputBuffer {
    private var storage: [UInt8] = []
    private var start = 0

    package var count: Int { storage.count - start }
    package var isEmpty: Bool { count == 0 }

    subscript(offset: Int) -> UInt8 { storage[start + offset] }

    /// The unconsumed bytes at `range`.
    subscript(range: Range<Int>) -> ArraySlice<UInt8> {
        storage[(start + range.lowerBound)..<(start + range.upperBound)]
    }

    /// The offset of the first `byte` in the first `limit` unconsumed bytes.
    func firstIndex(of byte: UInt8, within limit: Int) -> Int? {
        let end = start + min(limit, count)
        return storage[start..<end].firstIndex(of: byte).map { $0 - start }
    }

    package init() {}

    package mutating func append(_ bytes: UnsafeRawBufferPointer) {
        storage.append(contentsOf: bytes)
    }

    mutating func consume(_ byteCount: Int) {
        precondition(byteCount <= count, "consuming more than was received")
        start += byteCount
        if start == storage.count {
            storage.removeAll(keepingCapacity: storage.capacity <= Self.retainedCapacity)
            start = 0
        } else if start >= Self.retainedCapacity && start * 2 >= storage.count {
            storage.removeFirst(start)
            start = 0
        }
    }

    /// Capacity kept for reuse when the buffer empties: enough for typical requests, small enough
    /// that a thousand idle connections don't hold a large body each.
    private static let retainedCapacity = 16 * 1024
}
