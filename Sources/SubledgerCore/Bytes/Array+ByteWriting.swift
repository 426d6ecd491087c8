/// The encodings `ByteReader` reads, appended in place.
extension [UInt8] {
    /// Most values the codecs write (counts, small ids, deltas) take one byte: that case is
    /// inlined, the loop is not.
    @inlinable @inline(__always)
    public mutating func appendVarint(_ value: UInt64) {
        if value < 0x80 {
            append(UInt8(truncatingIfNeeded: value))
        } else {
            appendLongVarint(value)
        }
    }

    @usableFromInline
    mutating func appendLongVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }

    @inlinable
    public mutating func appendVarint(_ value: Int) {
        appendVarint(UInt64(value))
    }

    @inlinable
    public mutating func appendZigzag(_ value: Int64) {
        appendVarint(Varint.zigzag(value))
    }

    /// Fixed-width and most significant byte first, so that keys sort as their numbers do.
    @inlinable
    public mutating func appendBigEndian(_ value: some FixedWidthInteger) {
        Swift.withUnsafeBytes(of: value.bigEndian) { append(contentsOf: $0) }
    }
}
