/// Sequential reads from a byte array, throwing on truncation.
struct ByteReader {
    let bytes: [UInt8]
    var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func byte() throws -> UInt8 {
        guard offset < bytes.count else { throw LedgerError.storage("a stored record is truncated; run `subledger verify`") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func varint() throws -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let b = try byte()
            value |= UInt64(b & 0x7f) << shift
            if b < 0x80 { return value }
            shift += 7
            if shift > 63 { throw LedgerError.storage("a stored record has a malformed number; run `subledger verify`") }
        }
    }

    mutating func bytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0, offset + count <= bytes.count else { throw LedgerError.storage("a stored record is truncated; run `subledger verify`") }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func string() throws -> String {
        String(decoding: try bytes(Int(try varint())), as: UTF8.self)
    }

    mutating func int64() throws -> Int64 {
        let raw = try bytes(8)
        return raw.reversed().reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }

    /// Varint length, then the bytes.
    mutating func readBytes() throws -> [UInt8] { try bytes(Int(try varint())) }

    var atEnd: Bool { offset >= bytes.count }

    func rest() -> ArraySlice<UInt8> { bytes[offset...] }
}

/// Writing the varint and length-prefixed encodings that `ByteReader` reads.
extension Array where Element == UInt8 {
    mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        append(UInt8(v))
    }

    /// Varint length, then the bytes.
    mutating func appendBytes(_ bytes: [UInt8]) {
        appendVarint(UInt64(bytes.count))
        self += bytes
    }

    mutating func appendString(_ text: String) {
        let utf8 = Array(text.utf8)
        appendVarint(UInt64(utf8.count))
        self += utf8
    }
}
