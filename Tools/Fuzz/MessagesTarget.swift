import SubledgerAppStore
import SubledgerCrypto
import SubledgerJWS

/// Webhook bodies, compact JWS and payload JSON: everything ingestion parses before it checks
/// a signature. Beyond "no crash": a parsed JWS's parts are the canonical base64url of what it
/// decoded, and every payload a decoder accepts survives `decode(jsonBytes())` unchanged.
struct MessagesTarget: FuzzTarget {
    static let name = "messages"
    let corpus: [[UInt8]]
    private(set) var tally = Tally()

    init(seedLines: [[UInt8]]) {
        // Decoded payload JSON is a seed too: the scanner sees it without the JWS around it.
        let payloads = seedLines.compactMap { compactJWS(in: $0).flatMap { try? CompactJWS($0).payload } }
        corpus = seedLines + payloads
    }

    /// A byte-mutated corpus entry; for a third of the JWS, the edits go into the decoded payload
    /// JSON instead, re-encoded (edits to base64 text mostly stop at the strict decoder).
    func generate(_ random: inout Random) -> [UInt8] {
        let seed = random.element(corpus)
        guard random.chance(3), let text = compactJWS(in: seed), let jws = try? CompactJWS(text) else {
            return mutate(seed, &random)
        }
        let parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        return Array(parts[0]) + [UInt8(ascii: ".")] + Base64URL.encode(mutate(jws.payload, &random)) + [UInt8(ascii: ".")] + Array(parts[2])
    }

    mutating func feed(_ input: [UInt8], _ random: inout Random) throws(InvariantViolation) {
        // The payload decoders see the bytes directly as well (a payload is JSON once base64 is gone).
        let direct = try decodePayloads(input)
        var text = input
        if input.first == UInt8(ascii: "{"), let body = try? ResponseBodyV2.decode(input) {
            try roundTrip(body, ResponseBodyV2.decode)
            if let signed = body.signedPayload { text = Array(signed.utf8) }
        }
        guard let jws = try? CompactJWS(text) else { return tally.count(direct > 0 ? "payload JSON decoded" : "rejected") }
        try checkCanonical(jws, text: text)
        var decoded = try decodePayloads(jws.payload)
        if let notification = try? NotificationPayload.decode(jws.payload) {
            for nested in [notification.data?.signedTransactionInfo, notification.data?.signedRenewalInfo].compactMap({ $0 }) {
                guard let inner = try? CompactJWS(Array(nested.utf8)) else { continue }
                try checkCanonical(inner, text: Array(nested.utf8))
                decoded += try decodePayloads(inner.payload)
            }
        }
        tally.count(decoded > 0 ? "JWS with a decoded payload" : "JWS with a rejected payload")
    }

    /// Tries every payload decoder; returns how many accepted the bytes.
    private func decodePayloads(_ bytes: [UInt8]) throws(InvariantViolation) -> Int {
        var accepted = 0
        if let payload = try? NotificationPayload.decode(bytes) { try roundTrip(payload, NotificationPayload.decode); accepted += 1 }
        if let payload = try? TransactionPayload.decode(bytes) { try roundTrip(payload, TransactionPayload.decode); accepted += 1 }
        if let payload = try? RenewalInfoPayload.decode(bytes) { try roundTrip(payload, RenewalInfoPayload.decode); accepted += 1 }
        return accepted
    }

    /// `decode(jsonBytes())` gives back an equal value (the encoders' documented promise).
    private func roundTrip<P: JSONBytesEncodable & Equatable>(_ payload: P, _ decode: ([UInt8]) throws(PayloadError) -> P) throws(InvariantViolation) {
        let json = payload.jsonBytes()
        let again: P
        do { again = try decode(json) } catch {
            throw InvariantViolation("\(P.self) decoded, but its own JSON does not decode (\(error)): \(String(decoding: json, as: UTF8.self))")
        }
        guard again == payload else {
            throw InvariantViolation("\(P.self) changes through jsonBytes() and decode: \(String(decoding: json, as: UTF8.self))")
        }
    }

    /// Strict base64url has one encoding per byte string, so each part re-encodes to its text.
    private func checkCanonical(_ jws: CompactJWS, text: [UInt8]) throws(InvariantViolation) {
        let parts = text.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, Base64URL.encode(jws.payload)[...] == parts[1], Base64URL.encode(jws.signature)[...] == parts[2],
              jws.signingInput[...] == text[..<parts[1].endIndex] else {
            throw InvariantViolation("a parsed JWS's payload or signature is not the canonical base64url of its text")
        }
    }
}

/// The payload types with a `jsonBytes()` encoder.
protocol JSONBytesEncodable {
    func jsonBytes() -> [UInt8]
}

extension NotificationPayload: JSONBytesEncodable {}
extension TransactionPayload: JSONBytesEncodable {}
extension RenewalInfoPayload: JSONBytesEncodable {}
extension ResponseBodyV2: JSONBytesEncodable {}
