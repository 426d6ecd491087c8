import SubledgerEvents
import SubledgerProjections

/// `history ID`: a customer's events in effective-time order, each with the whole event read
/// back from the log (the projection keeps only what it folds) and, when asked, the verbatim
/// signed message it came from.
public struct HistoryReport: Sendable, Equatable {
    public struct Item: Sendable, Equatable {
        public var entry: HistoryEntry
        public var event: Event
        /// The signed message as ingested (only for `raw` queries).
        public var signedPayload: String?
    }

    public var customerId: String
    public var events: [Item]
}
