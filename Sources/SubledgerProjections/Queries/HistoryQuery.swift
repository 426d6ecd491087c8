/// `history ID` / `GET /v1/customers/{id}/history`: a customer's events in effective-time order.
public struct HistoryQuery: Sendable, Equatable {
    /// An appAccountToken, originalTransactionId or transactionId.
    public var id: String
    /// Effective-time bounds, epoch milliseconds, both inclusive.
    public var from: Int64?
    public var to: Int64?
    /// Adds each event's verbatim signed payload.
    public var raw: Bool

    public init(id: String, from: Int64? = nil, to: Int64? = nil, raw: Bool = false) {
        self.id = id
        self.from = from
        self.to = to
        self.raw = raw
    }

    /// `from`, `to` (instants), `raw`.
    public init(id: String, _ parameters: some QueryParameterSource) throws(QueryError) {
        let to = try parameters.instantThroughDay("to")
        // Ordered as given: a window inside one millisecond is empty, not reversed.
        try parameters.requireOrdered(from: try parameters.instant("from"), to: to)
        self.init(id: id, from: try parameters.instant("from", roundingUp: true), to: to, raw: try parameters.isOn("raw"))
    }
}
