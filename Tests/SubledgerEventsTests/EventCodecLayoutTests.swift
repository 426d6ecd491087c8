import SubledgerEvents
import Testing

/// The worked example of docs/event-codec.md, byte for byte: if the code and the
/// specification drift apart, this fails.
@Suite("Event codec layout matches docs/event-codec.md")
struct EventCodecLayoutTests {
    static let example = Event(
        type: .renewed,
        effectiveAt: 1_700_000_000_000,
        evidence: EvidenceRef(position: 300, length: 5),
        notificationType: "DID_RENEW",
        subtype: "BILLING_RECOVERY",
        transaction: TransactionFacts(
            transactionId: "2000000000000001",
            productId: "pro",
            purchaseDate: 1_699_999_999_999,
            price: 9_990,
            currency: "USD"))

    static let exampleBytes: [UInt8] = [
        0x03, 0x00,  // type code 3 (renewed), little-endian
        0x01,  // version 1
        0x46,  // envelope bitmap: notificationType (1), subtype (2), transaction (6)
        0x80, 0xA0, 0xAB, 0xFE, 0xF9, 0x62,  // effectiveAt 1700000000000, zigzag varint
        0xAC, 0x02,  // evidence position 300
        0x05,  // evidence length 5
        0x09,  // notificationType: odd tag, vocabulary index 4 = DID_RENEW
        0x19,  // subtype: odd tag, vocabulary index 12 = BILLING_RECOVERY
        // transaction bitmap 3145: transactionId (0), productId (3), purchaseDate (6), price (10), currency (11)
        0xC9, 0x18,
        0x83, 0x80, 0xE8, 0x98, 0xA9, 0xBF, 0x8D, 0x07,  // transactionId: odd tag 2n+1, n = 2000000000000001
        0x06, 0x70, 0x72, 0x6F,  // productId: even tag 2×3, "pro"
        0x01,  // purchaseDate: zigzag(-1) relative to effectiveAt
        0x8C, 0x9C, 0x01,  // price 9990, zigzag varint
        0x01,  // currency: odd tag, vocabulary index 0 = USD
    ]

    @Test("encoding the example gives the documented bytes")
    func encodesToDocumentedBytes() {
        #expect(EventCodec.encoded(Self.example) == Self.exampleBytes)
    }

    @Test("decoding the documented bytes gives the example")
    func decodesDocumentedBytes() throws {
        #expect(try EventCodec.decode(Self.exampleBytes) == Self.example)
    }

    @Test("the smallest event is seven bytes: header, empty bitmap, three zero varints")
    func minimalEvent() throws {
        let bytes: [UInt8] = [0x14, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00]
        let event = Event(type: .test, effectiveAt: 0, evidence: EvidenceRef(position: 0, length: 0))
        #expect(try EventCodec.decode(bytes) == event)
        #expect(EventCodec.encoded(event) == bytes)
    }
}
