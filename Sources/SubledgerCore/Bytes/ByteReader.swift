/// Sequential, bounds-checked reads over borrowed bytes: LEB128 varints, zigzag integers,
/// fixed-width integers and byte runs. Every read throws `Failure` rather than run past the end;
/// nothing here allocates.
///
/// The reader is the event codec's hot path, so it keeps a raw base pointer and inlines.
public struct ByteReader<Failure: ByteReaderError> {
    public let base: UnsafeRawPointer
    public let count: Int
    public var offset: Int

    @inlinable
    public init(base: UnsafeRawPointer, count: Int, offset: Int = 0) {
        self.base = base
        self.count = count
        self.offset = offset
    }

    @inlinable
    public init(_ buffer: UnsafeRawBufferPointer, offset: Int = 0) {
        // An empty buffer may have no address; every read of it throws before touching memory.
        self.init(base: buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!, count: buffer.count, offset: offset)
    }

    @inlinable
    public var isAtEnd: Bool { offset >= count }

    /// The next byte without consuming it; nil at the end.
    @inlinable
    public func peek() -> UInt8? {
        offset < count ? base.load(fromByteOffset: offset, as: UInt8.self) : nil
    }

    @inlinable @inline(__always)
    public mutating func byte() throws(Failure) -> UInt8 {
        guard offset < count else { throw Failure.truncated(at: offset) }
        defer { offset &+= 1 }
        return base.load(fromByteOffset: offset, as: UInt8.self)
    }

    /// An unsigned LEB128 varint in its shortest form; eight bytes are looked at in one load
    /// where there are eight left.
    @inlinable @inline(__always)
    public mutating func varint() throws(Failure) -> UInt64 {
        if count &- offset >= 8 {
            let word = UInt64(littleEndian: (base + offset).loadUnaligned(as: UInt64.self))
            if word & 0x80 == 0 {
                offset &+= 1
                return word & 0x7f
            }
            if let (value, length) = Varint.short(word) {
                guard (word &>> UInt64((length &- 1) &* 8)) & 0xff != 0 else {
                    throw Failure.malformedVarint(at: offset)
                }
                offset &+= length
                return value
            }
        }
        return try varintByteByByte()
    }

    /// For the last bytes and varints over 8 bytes. The canonical form is the shortest: a final
    /// byte of 0 after others is rejected, so each value has one encoding. Inlinable (not forced)
    /// so that clients get it specialized for their error type.
    @inlinable
    mutating func varintByteByByte() throws(Failure) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < count else { throw Failure.truncated(at: start) }
            let byte = base.load(fromByteOffset: offset, as: UInt8.self)
            offset &+= 1
            if shift == 63, byte > 1 { throw Failure.malformedVarint(at: start) }
            result |= UInt64(byte & 0x7f) &<< shift
            if byte < 0x80 {
                if byte == 0, shift > 0 { throw Failure.malformedVarint(at: start) }
                return result
            }
            shift &+= 7
        }
    }

    @inlinable @inline(__always)
    public mutating func zigzag() throws(Failure) -> Int64 {
        Varint.unzigzag(try varint())
    }

    @inlinable
    public mutating func bigEndian<T: FixedWidthInteger>(_: T.Type) throws(Failure) -> T {
        guard MemoryLayout<T>.size <= count &- offset else { throw Failure.truncated(at: offset) }
        defer { offset &+= MemoryLayout<T>.size }
        return T(bigEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    @inlinable
    public mutating func littleEndian<T: FixedWidthInteger>(_: T.Type) throws(Failure) -> T {
        guard MemoryLayout<T>.size <= count &- offset else { throw Failure.truncated(at: offset) }
        defer { offset &+= MemoryLayout<T>.size }
        return T(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// The next `length` bytes, borrowed from the same memory.
    @inlinable
    public mutating func bytes(_ length: Int) throws(Failure) -> UnsafeRawBufferPointer {
        guard length >= 0, length <= count &- offset else { throw Failure.truncated(at: offset) }
        defer { offset &+= length }
        return UnsafeRawBufferPointer(start: base + offset, count: length)
    }

    /// Everything after the offset, borrowed.
    @inlinable
    public mutating func rest() -> UnsafeRawBufferPointer {
        defer { offset = count }
        return UnsafeRawBufferPointer(start: base + offset, count: count &- offset)
    }
}
