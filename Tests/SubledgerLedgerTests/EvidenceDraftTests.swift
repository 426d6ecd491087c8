import SubledgerCrypto
import SubledgerJWS
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

/// Evidence records built beside verification, from the parts it decoded.
@Suite("Evidence drafts")
struct EvidenceDraftTests {
    let fixtures: AppStoreFixtures

    init() throws {
        let start = AppStoreFixtures.defaultPurchaseDate
        fixtures = AppStoreFixtures(pki: try TestPKI(validity: (start - 86_400_000)...(start + 86_400_000 * 400)))
    }

    /// The record with header positions 7, 8, 9... in the order the draft lists its headers.
    func assemble(_ draft: EvidenceDraft) -> (record: [UInt8], headers: [UInt64: [UInt8]]) {
        var positions: [HeaderKey: UInt64] = [:]
        for header in draft.headers where positions[header] == nil { positions[header] = UInt64(7 + positions.count) }
        let headers = Dictionary(uniqueKeysWithValues: positions.map { ($1, $0.bytes) })
        return (draft.record { positions[$0]! }, headers)
    }

    func decode(_ record: [UInt8], headers: [UInt64: [UInt8]]) throws -> EvidenceCodec.Decoded {
        try EvidenceCodec.decode(record) { position in try #require(headers[position]) }
    }

    func parts(_ text: String) throws -> (text: [UInt8], jws: CompactJWS) {
        let bytes = Array(text.utf8)
        return (bytes, try CompactJWS(bytes))
    }

    @Test("a notification's record stores its nested JWS as parts and rebuilds the message byte for byte")
    func notificationRoundTrip() throws {
        let transaction = fixtures.transaction()
        let signed = fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction))
        let message = Array(signed.signedPayload.utf8)
        let nested = try [signed.payload.data!.signedTransactionInfo!, signed.payload.data!.signedRenewalInfo!].map { try parts($0) }
        let draft = EvidenceCodec.draft(key: "n:1", message: message, outer: try CompactJWS(message), nested: nested)
        let (record, headers) = assemble(draft)
        #expect(record.first == 2)
        #expect(draft.references.count == 3)
        #expect(record.count * 2 < message.count)
        let decoded = try decode(record, headers: headers)
        #expect(decoded.key == "n:1")
        #expect(decoded.message == message)
    }

    @Test("a payload holding a marker byte is stored verbatim and rebuilt as it was")
    func markerByteStoredVerbatim() throws {
        for marker in [EvidenceCodec.headerMarker, EvidenceCodec.jwsMarker] {
            let message = fixtures.signer.sign(payload: Array(#"{"a":"x"#.utf8) + [marker] + Array(#""}"#.utf8))
            let draft = EvidenceCodec.draft(key: "t:1", message: message, outer: try CompactJWS(message), nested: [])
            let (record, headers) = assemble(draft)
            #expect(record.first == 0)
            #expect(draft.references.isEmpty)
            #expect(draft.headers.count == 1)
            #expect(try decode(record, headers: headers).message == message)
        }
    }

    @Test("a nested JWS written with JSON escapes in the payload stays inline; its header is stored all the same")
    func escapedNestedStaysInline() throws {
        let transaction = fixtures.signedTransactionInfo(fixtures.transaction())
        let escaped = #"\u0065"# + transaction.dropFirst()
        #expect(transaction.first == "e")
        let payload = Array(#"{"notificationType":"TEST","data":{"signedTransactionInfo":"\#(escaped)"}}"#.utf8)
        let message = fixtures.signer.sign(payload: payload)
        let draft = EvidenceCodec.draft(key: "n:2", message: message, outer: try CompactJWS(message), nested: [try parts(transaction)])
        let (record, headers) = assemble(draft)
        #expect(record.first == 2)
        #expect(draft.references.count == 1)
        #expect(draft.headers.count == 2)
        #expect(try decode(record, headers: headers).message == message)
    }

    @Test("header keys are equal exactly when their bytes are, wherever the bytes are stored")
    func headerKeys() {
        let header = (0..<3500).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var table: [HeaderKey: UInt64] = [HeaderKey(header): 1]
        #expect(table[HeaderKey(Array(header[...]))] == 1)
        for index in [0, 1750, 3496, 3499] {
            var changed = header
            changed[index] ^= 0x01
            #expect(table[HeaderKey(changed)] == nil, "byte \(index)")
            table[HeaderKey(changed)] = UInt64(index + 2)
        }
        #expect(table.count == 5)
        #expect(table[HeaderKey(header)] == 1)
        #expect(table[HeaderKey(Array(header.dropLast()))] == nil)
    }
}
