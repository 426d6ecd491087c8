#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore
import SubledgerCrypto
import SubledgerJWS

/// Compact, byte-exact storage of a verbatim signed message (`history --raw` rebuilds it).
///
/// The JWS headers of App Store messages hold the whole x5c chain (about 3.5 KB of base64 each)
/// and repeat in every message signed with the same chain. Each distinct header is stored once
/// (an evidence record of kind `headerKind`) and referenced by its log position; payloads and
/// signatures are stored decoded (base64url costs a third), the nested JWS of a notification
/// included. Rebuilding re-encodes, so it is exact only for canonical base64url, the only kind
/// `CompactJWS` accepts; a payload holding a marker byte (below) is kept as it was.
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

    /// The record of `message`, the outer JWS as verification parsed it (`outer`), with the
    /// nested JWS of a notification (`nested`: each text and its parse) wherever their text
    /// occurs in the outer payload. Payloads and signatures are stored decoded and rebuilt by
    /// encoding them again, which is exact because `CompactJWS` accepts only canonical base64url.
    static func draft(key: String, message: [UInt8], outer: CompactJWS, nested: [(text: [UInt8], jws: CompactJWS)]) -> EvidenceDraft {
        var draft = EvidenceDraft(headers: [HeaderKey(outer.header.text)] + nested.map { HeaderKey($0.jws.header.text) })
        guard !contains(headerMarker, in: outer.payload), !contains(jwsMarker, in: outer.payload) else {
            draft.append(0)
            draft.appendString(key)
            draft.append(contentsOf: message)
            return draft
        }
        draft.append(2)
        draft.appendString(key)
        draft.appendReference(to: draft.headers[0])
        draft.appendBytes(outer.signature)
        // Each nested JWS where it occurs (the generic `firstRange(of:)` is far slower).
        var found: [(offset: Int, text: [UInt8], jws: CompactJWS, header: HeaderKey)] = []
        for ((text, jws), header) in zip(nested, draft.headers.dropFirst()) where found.allSatisfy({ $0.text != text }) {
            var from = 0
            while let offset = outer.payload.withUnsafeBytes({ firstOffset(of: text, in: $0, from: from) }) {
                found.append((offset, text, jws, header))
                from = offset + text.count
            }
        }
        found.sort { $0.offset < $1.offset }
        let payload = outer.payload
        var copied = 0
        for (offset, text, jws, header) in found where offset >= copied {
            draft.append(contentsOf: payload[copied..<offset])
            draft.append(jwsMarker)
            draft.appendReference(to: header)
            draft.appendBytes(jws.payload)
            draft.appendBytes(jws.signature)
            copied = offset + text.count
        }
        draft.append(contentsOf: payload[copied...])
        return draft
    }

    private static func contains(_ byte: UInt8, in bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { !$0.isEmpty && memchr($0.baseAddress!, Int32(byte), $0.count) != nil }
    }

    /// `memchr(3)` for the first byte, `memcmp(3)` for the rest (`memmem(3)` is a GNU extension
    /// Swift's Glibc module does not offer).
    static func firstOffset(of needle: [UInt8], in hay: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= hay.count else { return nil }
        return needle.withUnsafeBytes { pattern in
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

    /// The positions of the header records a message record refers to; none for a message
    /// stored verbatim or a record that does not decode.
    static func headerPositions(of record: UnsafeRawBufferPointer) -> [UInt64] {
        var positions: [UInt64] = []
        _ = try? decode(record) { position in
            positions.append(position)
            return []
        }
        return positions
    }

    /// The decoded payloads of the nested JWS a message record holds, without rebuilding it: those
    /// of format 2 only (format 1 keeps them as text, format 0 keeps the message verbatim); none
    /// for a record that does not read.
    static func nestedPayloads(of record: UnsafeRawBufferPointer) -> [UnsafeRawBufferPointer] {
        var reader = LedgerRecordReader(record)
        var payloads: [UnsafeRawBufferPointer] = []
        do {
            guard try reader.byte() == 2 else { return [] }
            _ = try reader.bytes(Int(clamping: try reader.varint()))
            _ = try reader.varint()
            _ = try reader.bytes(Int(clamping: try reader.varint()))
            // The JSON between nested JWS holds no marker byte, so `memchr` finds the next one.
            while !reader.isAtEnd, let hit = memchr(reader.base + reader.offset, Int32(jwsMarker), reader.count - reader.offset) {
                reader.offset = reader.base.distance(to: UnsafeRawPointer(hit)) + 1
                _ = try reader.varint()
                payloads.append(try reader.bytes(Int(clamping: try reader.varint())))
                _ = try reader.bytes(Int(clamping: try reader.varint()))
            }
        } catch {
            return []
        }
        return payloads
    }

    /// The dedup key of a message record, without rebuilding it.
    static func key(of record: UnsafeRawBufferPointer) -> String? {
        var reader = LedgerRecordReader(UnsafeRawBufferPointer(rebasing: record.prefix(300)))
        guard (try? reader.byte()) != nil else { return nil }
        return try? reader.string()
    }
}
