#if canImport(Glibc)
import Glibc
#endif
import SubledgerCrypto

/// Compact, byte-exact storage of a verbatim signed message (`history --raw` rebuilds it).
///
/// The JWS headers of App Store messages hold the whole x5c chain (about 3.5 KB of base64 each)
/// and repeat in every message signed with the same chain. Each distinct header is stored once
/// (an evidence record of kind `headerKind`) and referenced by its log position; payloads and
/// signatures are stored decoded (base64url costs a third), the nested JWS of a notification
/// included. Rebuilding re-encodes, so it is exact only for canonical base64url, which is
/// checked when storing: what would not come back byte-identical is kept as it was.
///
/// Record layout (kind `messageKind`): format (u8), dedup key (varint length + UTF-8), then
/// - format 0: the message bytes, verbatim;
/// - format 1 (read only, written by the first version): outer header reference (varint
///   position), signature (varint length + base64url text), the outer payload JSON in which each
///   nested header is byte 0x01 followed by its varint position;
/// - format 2: outer header reference, signature (varint length + raw bytes), the outer payload
///   JSON in which each nested JWS is byte 0x02, its header reference, its payload (varint
///   length + raw bytes) and its signature (varint length + raw bytes).
/// Raw 0x01 and 0x02 cannot occur in JSON, so the markers are unambiguous.
enum Evidence {
    static let messageKind: UInt8 = 2
    static let headerKind: UInt8 = 3
    static let headerMarker: UInt8 = 0x01
    static let jwsMarker: UInt8 = 0x02

    /// `nested` are the nested JWS strings of a notification; `headerPosition` maps a header's
    /// base64url text to the position of its header record (appended beforehand).
    static func encode(key: String, message: [UInt8], outerPayload: [UInt8], nested: [[UInt8]], headerPosition: ([UInt8]) -> UInt64) -> [UInt8] {
        var record: [UInt8] = []
        guard let outer = CanonicalJWS(message, payload: outerPayload), !outerPayload.contains(headerMarker), !outerPayload.contains(jwsMarker) else {
            record.append(0)
            record.appendString(key)
            record += message
            return record
        }
        record.append(2)
        record.appendString(key)
        record.appendVarint(headerPosition(outer.header))
        record.appendBytes(outer.signature)
        // Each nested JWS where it occurs (the generic `firstRange(of:)` is far slower).
        var found: [(offset: Int, jws: [UInt8], parts: CanonicalJWS)] = []
        for jws in nested {
            guard let parts = CanonicalJWS(jws), found.allSatisfy({ $0.jws != jws }) else { continue }
            var from = 0
            while let offset = firstOffset(of: jws, in: outerPayload, from: from) {
                found.append((offset, jws, parts))
                from = offset + jws.count
            }
        }
        found.sort { $0.offset < $1.offset }
        var copied = 0
        for (offset, jws, parts) in found where offset >= copied {
            record += outerPayload[copied..<offset]
            record.append(jwsMarker)
            record.appendVarint(headerPosition(parts.header))
            record.appendBytes(parts.payload)
            record.appendBytes(parts.signature)
            copied = offset + jws.count
        }
        record += outerPayload[copied...]
        return record
    }

    /// A compact JWS whose payload and signature re-encode to exactly the text they came from.
    struct CanonicalJWS {
        var header: [UInt8]
        var payload: [UInt8]
        var signature: [UInt8]

        init?(_ jws: [UInt8], payload decodedPayload: [UInt8]? = nil) {
            let parts = jws.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
            guard parts.count == 3,
                  let payload = decodedPayload ?? Base64URL.decode(Array(parts[1])), Base64URL.encode(payload) == Array(parts[1]),
                  let signature = Base64URL.decode(Array(parts[2])), Base64URL.encode(signature) == Array(parts[2])
            else { return nil }
            header = Array(parts[0])
            self.payload = payload
            self.signature = signature
        }
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
        switch format {
        case 0:
            return Decoded(key: key, message: Array(reader.rest()))
        case 1, 2:
            let outerHeader = try header(reader.varint())
            let signature = format == 1 ? try reader.bytes(Int(try reader.varint())) : Base64URL.encode(try reader.readBytes())
            var payload: [UInt8] = []
            while !reader.atEnd {
                let byte = try reader.byte()
                switch (format, byte) {
                case (1, headerMarker):
                    payload += try header(reader.varint())
                case (2, jwsMarker):
                    payload += try header(reader.varint())
                    payload.append(UInt8(ascii: "."))
                    payload += Base64URL.encode(try reader.readBytes())
                    payload.append(UInt8(ascii: "."))
                    payload += Base64URL.encode(try reader.readBytes())
                default:
                    payload.append(byte)
                }
            }
            return Decoded(key: key, message: outerHeader + [UInt8(ascii: ".")] + Base64URL.encode(payload) + [UInt8(ascii: ".")] + signature)
        default:
            throw LedgerError.storage("evidence record has unknown format \(format); upgrade Subledger")
        }
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
