/// Writes bytes through a pointer into room its caller reserved, checking nothing: for encoders
/// on hot paths that can bound what they write before they write it (see
/// `Array.append(atMost:_:)`). Each `Array.append` checks uniqueness and capacity; a rebuild's
/// timeline encoder made about 80 M of those calls at 10 M events. Debug builds check each
/// write against the end of the room.
public struct UnsafeByteWriter {
    @usableFromInline var cursor: UnsafeMutablePointer<UInt8>
    @usableFromInline let end: UnsafeMutablePointer<UInt8>

    @inlinable
    init(_ start: UnsafeMutablePointer<UInt8>, count: Int) {
        cursor = start
        end = start + count
    }

    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        assert(cursor < end, "an encoder wrote past the room it reserved")
        cursor.pointee = byte
        cursor += 1
    }

    /// At most `Varint.maxBytes` bytes.
    @inlinable @inline(__always)
    public mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(truncatingIfNeeded: value))
    }

    @inlinable @inline(__always)
    public mutating func appendVarint(_ value: Int) {
        appendVarint(UInt64(value))
    }

    @inlinable @inline(__always)
    public mutating func appendZigzag(_ value: Int64) {
        appendVarint(Varint.zigzag(value))
    }

    /// Fixed-width and most significant byte first.
    @inlinable
    public mutating func appendBigEndian<Integer: FixedWidthInteger>(_ value: Integer) {
        assert(cursor + MemoryLayout<Integer>.size <= end, "an encoder wrote past the room it reserved")
        UnsafeMutableRawPointer(cursor).storeBytes(of: value.bigEndian, as: Integer.self)
        cursor += MemoryLayout<Integer>.size
    }
}

extension [UInt8] {
    /// Appends what `body` writes, which must be at most `maxCount` bytes: the room is reserved
    /// (and zeroed, as `Array` has no uninitialised tail to write into) once, then written
    /// unchecked (checked in debug builds). Writing past `maxCount` stops the process, in a
    /// release build after the fact.
    @inlinable
    public mutating func append(atMost maxCount: Int, _ body: (inout UnsafeByteWriter) -> Void) {
        let start = count
        append(contentsOf: repeatElement(0, count: maxCount))
        let written = withUnsafeMutableBufferPointer { buffer in
            let first = buffer.baseAddress! + start
            var writer = UnsafeByteWriter(first, count: maxCount)
            body(&writer)
            return writer.cursor - first
        }
        precondition(written <= maxCount, "an encoder wrote past the room it reserved")
        removeLast(maxCount - written)
    }
}
