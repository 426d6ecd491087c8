/// Appends the snapshot's primitives: LEB128 varints, zigzag integers, fixed big-endian keys.
struct ByteWriter {
    var bytes: [UInt8] = []

    init(capacity: Int = 0) {
        bytes.reserveCapacity(capacity)
    }

    @inline(__always)
    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    @inline(__always)
    mutating func varint(_ value: Int) {
        varint(UInt64(value))
    }

    @inline(__always)
    mutating func zigzag(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    mutating func bigEndian<T: FixedWidthInteger>(_ value: T) {
        withUnsafeBytes(of: value.bigEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func utf8(_ text: String) {
        bytes.append(contentsOf: text.utf8)
    }
}

/// Reads what `ByteWriter` wrote, refusing anything that runs past the end: a damaged snapshot
/// must be detected (and rebuilt), never trusted.
struct ByteReader {
    let buffer: UnsafeRawBufferPointer
    var offset = 0

    init(_ buffer: UnsafeRawBufferPointer) {
        self.buffer = buffer
    }

    var isAtEnd: Bool { offset == buffer.count }

    @inline(__always)
    mutating func varint() throws(SnapshotDamage) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < buffer.count, shift < 64 else { throw SnapshotDamage("a number runs past its value") }
            let byte = buffer[offset]
            offset += 1
            value |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    @inline(__always)
    mutating func count() throws(SnapshotDamage) -> Int {
        let value = try varint()
        guard value <= UInt64(buffer.count) else { throw SnapshotDamage("a count larger than its value") }
        return Int(value)
    }

    @inline(__always)
    mutating func zigzag() throws(SnapshotDamage) -> Int64 {
        let value = try varint()
        return Int64(bitPattern: value >> 1) ^ -Int64(bitPattern: value & 1)
    }

    /// The next byte without consuming it; nil at the end.
    func peek() -> UInt8? {
        offset < buffer.count ? buffer[offset] : nil
    }

    mutating func byte() throws(SnapshotDamage) -> UInt8 {
        guard offset < buffer.count else { throw SnapshotDamage("a value ends early") }
        offset += 1
        return buffer[offset - 1]
    }

    mutating func bigEndian<T: FixedWidthInteger>(_ type: T.Type) throws(SnapshotDamage) -> T {
        guard offset + MemoryLayout<T>.size <= buffer.count else { throw SnapshotDamage("a value ends early") }
        defer { offset += MemoryLayout<T>.size }
        return T(bigEndian: buffer.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    mutating func bytes(_ count: Int) throws(SnapshotDamage) -> UnsafeRawBufferPointer {
        guard count >= 0, offset + count <= buffer.count else { throw SnapshotDamage("a value ends early") }
        defer { offset += count }
        return UnsafeRawBufferPointer(rebasing: buffer[offset..<offset + count])
    }
}

/// Why a stored snapshot could not be read; the store rebuilds it from the log.
struct SnapshotDamage: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
