#if canImport(Glibc)
import Glibc
#endif
import SubledgerCrypto

/// Compact, byte-exact storage of a verbatim signed message (`history --raw` rebuilds it).
///
/// The JWS headers of App Store messages hold the whole x5c chain (about 3.5 KB of base64 each)
/// and repeat in every message signed with the same chain. Each distinct header is stored once
/// (an evidence record of kind `headerKind`) and referenced by its log position; the outer
/// payload is stored decoded (base64url costs a third) with every nested JWS header replaced
/// by a reference. Rebuilding re-encodes, so it is exact only for canonical base64url, which is
/// checked when storing: a message that would not come back byte-identical is stored verbatim.
///
/// Record layout (kind `messageKind`): format (u8: 0 verbatim, 1 compact), dedup key (varint
/// length + UTF-8), then for format 0 the message bytes; for format 1: outer header reference
/// (varint position), signature (varint length + base64url text), and the outer payload JSON in
/// which each nested header is replaced by byte 0x01 followed by its varint position (raw 0x01
/// cannot occur in JSON).
enum Evidence {
    static let messageKind: UInt8 = 2
    static let headerKind: UInt8 = 3
    static let marker: UInt8 = 0x01

    /// The parts of a message the encoder needs; `headerPosition` maps a header's base64url
    /// text to the position of its header record (appended beforehand).
    static func encode(key: String, message: [UInt8], outerPayload: [UInt8], nestedHeaders: [[UInt8]], headerPosition: ([UInt8]) -> UInt64) -> [UInt8] {
        var record: [UInt8] = []
        let parts = message.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        let canonical = parts.count == 3 && Base64URL.encode(outerPayload) == Array(parts[1]) && !outerPayload.contains(marker)
        guard canonical else {
            record.append(0)
            record.appendString(key)
            record += message
            return record
        }
        record.append(1)
        record.appendString(key)
        record.appendVarint(headerPosition(Array(parts[0])))
        record.appendVarint(UInt64(parts[2].count))
        record += parts[2]
        // Nested headers in the order they occur (the generic `firstRange(of:)` is far slower).
        var found: [(offset: Int, header: [UInt8])] = []
        var distinct: [[UInt8]] = []
        for header in nestedHeaders where !distinct.contains(header) { distinct.append(header) }
        for header in distinct {
            var from = 0
            while let offset = firstOffset(of: header, in: outerPayload, from: from) {
                found.append((offset, header))
                from = offset + header.count
            }
        }
        found.sort { $0.offset < $1.offset }
        var copied = 0
        for (offset, header) in found where offset >= copied {
            record += outerPayload[copied..<offset]
            record.append(marker)
            record.appendVarint(headerPosition(header))
            copied = offset + header.count
        }
        record += outerPayload[copied...]
        return record
    }

    /// `memchr(3)` for the first byte, `memcmp(3)` for the rest.
    private static func firstOffset(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= haystack.count else { return nil }
        return haystack.withUnsafeBytes { hay in
            needle.withUnsafeBytes { pattern in
                var offset = start
                let last = hay.count - pattern.count
                while offset <= last {
                    guard let hit = memchr(hay.baseAddress! + offset, Int32(first), last - offset + 1) else { return nil }
                    offset = hay.baseAddress!.distance(to: UnsafeRawPointer(hit))
                    if memcmp(hit, pattern.baseAddress!, pattern.count) == 0 { return offset }
                    offset += 1
                }
                return nil
            }
        }
    }

    struct Decoded {
        var key: String
        var message: [UInt8]
    }

    /// Rebuilds the message; `header` returns a header record's text by position.
    static func decode(_ record: [UInt8], header: (UInt64) throws -> [UInt8]) throws -> Decoded {
        var reader = ByteReader(record)
        let format = try reader.byte()
        let key = try reader.string()
        if format == 0 { return Decoded(key: key, message: Array(reader.rest())) }
        guard format == 1 else { throw LedgerError.storage("evidence record has unknown format \(format); upgrade Subledger") }
        var message = try header(reader.varint())
        message.append(UInt8(ascii: "."))
        let signatureLength = Int(try reader.varint())
        let signature = try reader.bytes(signatureLength)
        var payload: [UInt8] = []
        let body = reader.rest()
        var index = body.startIndex
        while index < body.endIndex {
            if body[index] == marker {
                var sub = ByteReader(Array(body[(index + 1)...]))
                let position = try sub.varint()
                payload += try header(position)
                index += 1 + sub.offset
            } else {
                let next = body[index...].firstIndex(of: marker) ?? body.endIndex
                payload += body[index..<next]
                index = next
            }
        }
        message += Base64URL.encode(payload)
        message.append(UInt8(ascii: "."))
        message += signature
        return Decoded(key: key, message: message)
    }

    /// The dedup key of a message record, without rebuilding it.
    static func key(of record: UnsafeRawBufferPointer) -> String? {
        var reader = ByteReader(Array(record.prefix(300)))
        guard (try? reader.byte()) != nil else { return nil }
        return try? reader.string()
    }
}

/// A JWS header as a dictionary key, hashed in bulk: `[UInt8]`'s own hashing goes byte by byte,
/// which costs microseconds for a 3.5 KB header on every lookup.
struct HeaderKey: Hashable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}

extension Array where Element == UInt8 {
    mutating func appendVarint(_ value: UInt64) {
        var v = value
        while v >= 0x80 {
            append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        append(UInt8(v))
    }

    mutating func appendString(_ text: String) {
        let utf8 = Array(text.utf8)
        appendVarint(UInt64(utf8.count))
        self += utf8
    }
}

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

    func rest() -> ArraySlice<UInt8> { bytes[offset...] }
}
