import SubledgerEvents

/// `history ID` / `GET /v1/customers/{id}/history`: a customer's events in effective-time order.
public struct HistoryQuery: Sendable, Equatable {
    /// An appAccountToken, originalTransactionId or transactionId.
    public var id: String
    /// Effective-time bounds, epoch milliseconds, both inclusive.
    public var from: Int64?
    public var to: Int64?
    /// Only that environment's subscriptions and purchases; nil for all.
    public var environment: AppStoreEnvironment?
    /// Adds each event's verbatim signed payload.
    public var raw: Bool

    public init(id: String, from: Int64? = nil, to: Int64? = nil, environment: AppStoreEnvironment? = nil, raw: Bool = false) {
        self.id = id
        self.from = from
        self.to = to
        self.environment = environment
        self.raw = raw
    }

    /// `from`, `to` (instants), `environment`, `raw`.
    public init(id: String, _ parameters: some QueryParameterSource) throws(QueryError) {
        let to = try parameters.instantThroughDay("to")
        // Ordered as given: a window inside one millisecond is empty, not reversed.
        try parameters.requireOrdered(from: try parameters.instant("from"), to: to)
        self.init(id: id, from: try parameters.instant("from", roundingUp: true), to: to, environment: try parameters.environment(), raw: try parameters.isOn("raw"))
    }
}
