import Foundation
@testable import SubledgerAppStore
import Testing

@Suite("Encoding payloads to JSON")
struct PayloadEncodingTests {
    /// Documented members left nil in `payload` or in the objects it nests, as dotted paths.
    private func unsetMembers(_ payload: any MemberMirror, path: String = "") -> [String] {
        payload.documentedMembers.flatMap { name, member -> [String] in
            switch member {
            case nil: [path + name]
            case .object(let nested)?: unsetMembers(nested, path: path + name + ".")
            case .value?: []
            }
        }
    }

    /// What Foundation reads in `bytes` that differs from `payload`.
    private func foundationDifferences(_ payload: any MemberMirror, _ bytes: [UInt8]) throws -> [String] {
        guard case .object(let parsed) = try JSONValue(parsing: bytes) else { return ["not a JSON object"] }
        return differences(payload, parsed)
    }

    @Test("a transaction with every field set decodes back to an equal value, and Foundation reads each field")
    func transactionRoundTrip() throws {
        let transaction = FullPayloads.transaction
        #expect(unsetMembers(transaction) == [])
        let bytes = transaction.jsonBytes()
        #expect(try TransactionPayload.decode(bytes) == transaction)
        #expect(try foundationDifferences(transaction, bytes) == [])
    }

    @Test("renewal info with every field set decodes back to an equal value, and Foundation reads each field")
    func renewalInfoRoundTrip() throws {
        let renewal = FullPayloads.renewalInfo
        #expect(unsetMembers(renewal) == [])
        let bytes = renewal.jsonBytes()
        #expect(try RenewalInfoPayload.decode(bytes) == renewal)
        #expect(try foundationDifferences(renewal, bytes) == [])
    }

    @Test("a notification with every field and nested object set decodes back to an equal value")
    func notificationRoundTrip() throws {
        let notification = FullPayloads.notification
        #expect(unsetMembers(notification) == [])
        let bytes = notification.jsonBytes()
        #expect(try NotificationPayload.decode(bytes) == notification)
        #expect(try foundationDifferences(notification, bytes) == [])
    }

    @Test("a data object encodes on its own as it does inside a notification")
    func dataRoundTrip() throws {
        let data = FullPayloads.data
        #expect(unsetMembers(data) == [])
        let bytes = data.jsonBytes()
        #expect(try foundationDifferences(data, bytes) == [])
        let wrapped = try NotificationPayload.decode(Array(#"{"data":"#.utf8) + bytes + [UInt8(ascii: "}")])
        #expect(wrapped.data == data)
    }

    @Test("the webhook body is exactly {\"signedPayload\":\"<JWS>\"}")
    func responseBody() throws {
        var body = ResponseBodyV2()
        body.signedPayload = "aaa.bbb.ccc"
        #expect(String(decoding: body.jsonBytes(), as: UTF8.self) == #"{"signedPayload":"aaa.bbb.ccc"}"#)

        let full = FullPayloads.responseBody
        #expect(try ResponseBodyV2.decode(full.jsonBytes()) == full)
        #expect(try foundationDifferences(full, full.jsonBytes()) == [])
    }

    @Test("absent fields are omitted, not written as null")
    func nilFieldsOmitted() throws {
        #expect(TransactionPayload().jsonBytes() == Array("{}".utf8))
        var transaction = TransactionPayload()
        transaction.price = 0
        transaction.isUpgraded = true
        #expect(String(decoding: transaction.jsonBytes(), as: UTF8.self) == #"{"isUpgraded":true,"price":0}"#)
        var notification = NotificationPayload()
        notification.data = NotificationData()
        #expect(String(decoding: notification.jsonBytes(), as: UTF8.self) == #"{"data":{}}"#)
    }

    @Test("unknown members are written back verbatim, after the known ones")
    func unknownMembersVerbatim() throws {
        var renewal = RenewalInfoPayload()
        renewal.productId = "p"
        renewal.unknownFields = [
            UnknownField(name: "futureObject", rawJSON: #"{"nested": [1, 2.5e3, "x", null, true]}"#),
            UnknownField(name: "quote\"d\u{1}", rawJSON: "-12.75e-1"),
        ]
        let text = String(decoding: renewal.jsonBytes(), as: UTF8.self)
        #expect(
            text
                == #"{"productId":"p","futureObject":{"nested": [1, 2.5e3, "x", null, true]},"quote\"d\u0001":-12.75e-1}"#
        )
        #expect(try RenewalInfoPayload.decode(renewal.jsonBytes()) == renewal)
    }

    @Test(
        "strings with quotes, backslashes, control characters and non-ASCII text survive the round trip",
        arguments: [
            "plain", "", "quote \" and backslash \\ and slash /", "line\nfeed\r\ttab\u{8}\u{C}",
            "nul \u{0} unit separator \u{1F} delete \u{7F}", "café ☕︎ 𝄞 👨‍👩‍👧", "\u{2028}\u{2029}", "\"\\\"",
        ])
    func escapedStrings(text: String) throws {
        var transaction = TransactionPayload()
        transaction.offerIdentifier = text
        transaction.unknownFields = [UnknownField(name: text + "!", rawJSON: "1")]
        let bytes = transaction.jsonBytes()
        #expect(try TransactionPayload.decode(bytes) == transaction)
        #expect(try foundationDifferences(transaction, bytes) == [])
    }

    @Test(
        "integers are written exactly, including the extremes of Int64",
        arguments: [
            Int64.min, Int64.min + 1, -1_000_000_000_000_000_000, -10, -9, -1, 0, 1, 9, 10, 99, 100,
            1_767_225_601_234, 999_999_999_999_999_999, Int64.max,
        ])
    func integers(value: Int64) throws {
        var transaction = TransactionPayload()
        transaction.price = value
        transaction.quantity = Int(truncatingIfNeeded: value)
        let bytes = transaction.jsonBytes()
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"quantity":\#(value),"price":\#(value)}"#)
        if (0...JSONScanner.amountLimit).contains(value) {
            #expect(try TransactionPayload.decode(bytes) == transaction)
        } else {
            // Written as given, read back only within the amount bound (PayloadErrorTests).
            #expect(throws: PayloadError.self) { try TransactionPayload.decode(bytes) }
        }
    }
}

@Suite(
    "Encoding real Apple-signed payloads",
    .enabled(if: Corpus.isAvailable, "shared/conformance corpus not found next to the repository"))
struct CorpusEncodingTests {
    /// Every payload of the corpus, outer and nested, with its label.
    private enum Payload {
        case notification(NotificationPayload)
        case transaction(TransactionPayload)
        case renewal(RenewalInfoPayload)
    }

    private func corpusPayloads() throws -> [(label: String, json: [UInt8], payload: Payload)] {
        var payloads: [(label: String, json: [UInt8], payload: Payload)] = []
        for file in try Corpus.jwsFiles() {
            let label = file.deletingLastPathComponent().lastPathComponent + "/" + file.lastPathComponent
            let json = try #require(jwsPayloadBytes(try Corpus.compactJWS(at: file)))
            switch file.lastPathComponent.prefix(while: { $0 != "-" }) {
            case "notification":
                let notification = try NotificationPayload.decode(json)
                payloads.append((label, json, .notification(notification)))
                if let jws = notification.data?.signedTransactionInfo, let nested = jwsPayloadBytes(jws) {
                    payloads.append((label + " signedTransactionInfo", nested, .transaction(try .decode(nested))))
                }
                if let jws = notification.data?.signedRenewalInfo, let nested = jwsPayloadBytes(jws) {
                    payloads.append((label + " signedRenewalInfo", nested, .renewal(try .decode(nested))))
                }
            case "transaction":
                payloads.append((label, json, .transaction(try .decode(json))))
            default:
                payloads.append((label, json, .renewal(try .decode(json))))
            }
        }
        return payloads
    }

    @Test("every corpus payload, nested ones included, decodes, encodes and decodes back to an equal value")
    func decodeEncodeDecode() throws {
        var failures: [String] = []
        let payloads = try corpusPayloads()
        for (label, _, payload) in payloads {
            let same: Bool
            switch payload {
            case .notification(let value): same = try NotificationPayload.decode(value.jsonBytes()) == value
            case .transaction(let value): same = try TransactionPayload.decode(value.jsonBytes()) == value
            case .renewal(let value): same = try RenewalInfoPayload.decode(value.jsonBytes()) == value
            }
            if !same { failures.append(label) }
        }
        #expect(failures == [])
        #expect(payloads.count > 800, "only \(payloads.count) payloads were checked")
    }

    /// Apple writes compact JSON with no escaped slashes and whole-millisecond dates, so the same
    /// member order gives the same bytes.
    @Test("re-encoding an Apple payload reproduces Apple's bytes exactly: same members, same order")
    func appleMemberOrder() throws {
        var differing: [String] = []
        var compared = 0
        for (label, json, payload) in try corpusPayloads() {
            let encoded: [UInt8]
            switch payload {
            case .notification(let value): encoded = value.jsonBytes()
            case .transaction(let value): encoded = value.jsonBytes()
            case .renewal(let value): encoded = value.jsonBytes()
            }
            compared += 1
            if encoded != json { differing.append(label) }
        }
        #expect(differing == [], "\(differing.count) of \(compared) differ")
        #expect(compared > 800)
    }
}
