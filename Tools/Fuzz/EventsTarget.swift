import SubledgerAppStore
import SubledgerEvents
import SubledgerJWS

/// The binary event codec, as replay reads the log: the full decoder and the in-place view.
/// Beyond "no crash": an event decoded from damaged bytes encodes and decodes back to itself,
/// and the view's fields agree with the decoded event.
struct EventsTarget: FuzzTarget {
    static let name = "events"
    let corpus: [[UInt8]]
    private(set) var tally = Tally()

    /// The events ingestion would append for the seed messages (at most 200).
    init(seedLines: [[UInt8]]) {
        var corpus: [[UInt8]] = []
        for line in seedLines where corpus.count < 200 {
            guard let text = compactJWS(in: line), let jws = try? CompactJWS(text) else { continue }
            let evidence = EvidenceRef(position: UInt64(corpus.count) * 4096, length: UInt32(line.count))
            let event: Event
            if let notification = try? NotificationPayload.decode(jws.payload) {
                func nested<P>(_ text: String?, _ decode: ([UInt8]) throws(PayloadError) -> P) -> P? {
                    text.flatMap { try? CompactJWS(Array($0.utf8)) }.flatMap { try? decode($0.payload) }
                }
                event = EventMapping.event(
                    notification: notification,
                    transaction: nested(notification.data?.signedTransactionInfo, TransactionPayload.decode),
                    renewal: nested(notification.data?.signedRenewalInfo, RenewalInfoPayload.decode),
                    evidence: evidence)
            } else if let transaction = try? TransactionPayload.decode(jws.payload) {
                event = EventMapping.event(backfilled: transaction, evidence: evidence)
            } else {
                continue
            }
            var bytes: [UInt8] = []
            EventCodec.encode(event, into: &bytes)
            corpus.append(bytes)
        }
        self.corpus = corpus
    }

    func generate(_ random: inout Random) -> [UInt8] {
        mutate(random.element(corpus), &random)
    }

    mutating func feed(_ input: [UInt8], _ random: inout Random) throws(InvariantViolation) {
        let decoded: Event
        do {
            decoded = try input.withUnsafeBytes { raw in Result { () throws(EventDecodingError) in try EventCodec.decode(raw) } }.get()
        } catch {
            // The view accepts exactly what the decoder accepts.
            if input.withUnsafeBytes({ (try? EventView($0)) != nil }) {
                throw InvariantViolation("EventView accepted bytes that EventCodec.decode rejected (\(error))")
            }
            return tally.count("rejected")
        }
        let agreement = input.withUnsafeBytes { raw -> String? in
            guard let view = try? EventView(raw) else { return "EventCodec.decode accepted bytes that EventView rejected" }
            guard view.type == decoded.type, view.effectiveAt == decoded.effectiveAt, view.evidence == decoded.evidence,
                  view.status == decoded.status, view.transaction?.price == decoded.transaction?.price,
                  view.transaction?.expiresDate == decoded.transaction?.expiresDate,
                  (view.transaction == nil) == (decoded.transaction == nil), (view.renewal == nil) == (decoded.renewal == nil) else {
                return "EventView and EventCodec.decode disagree on the same bytes"
            }
            return nil
        }
        if let agreement { throw InvariantViolation(agreement) }
        var encoded: [UInt8] = []
        EventCodec.encode(decoded, into: &encoded)
        let again = encoded.withUnsafeBytes { try? EventCodec.decode($0) }
        guard again == decoded else {
            throw InvariantViolation("a decoded event does not survive encode then decode: \(decoded)")
        }
        tally.count("decoded")
    }
}
