#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore
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
enum EvidenceCodec {
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
        try record.withUnsafeBytes { bytes in try decode(bytes, header: header) }
    }

    private static func decode(_ bytes: UnsafeRawBufferPointer, header: (UInt64) throws -> [UInt8]) throws -> Decoded {
        var reader = LedgerRecordReader(bytes)
        let format = try reader.byte()
        let key = try reader.string()
        switch format {
        case 0:
            return Decoded(key: key, message: Array(reader.rest()))
        case 1, 2:
            let outerHeader = try header(reader.varint())
            let signature = format == 1 ? try reader.readBytes() : Base64URL.encode(try reader.readBytes())
            var payload: [UInt8] = []
            while !reader.isAtEnd {
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
        var reader = LedgerRecordReader(UnsafeRawBufferPointer(rebasing: record.prefix(300)))
        guard (try? reader.byte()) != nil else { return nil }
        return try? reader.string()
    }
}
