import SubledgerEvents
import SubledgerLog

/// `customer ID` / `GET /v1/customers/{id}`: one customer's state at an instant.
public struct CustomerQuery: Sendable, Equatable {
    /// An appAccountToken, originalTransactionId or transactionId.
    public var id: String
    /// Epoch milliseconds.
    public var asOf: Int64
    /// nil: every environment.
    public var environment: AppStoreEnvironment?
    /// Only the events recorded before this position: the state as the ledger told it when its
    /// log ended there (audit: "what did we say of this customer then?").
    public var atPosition: LogPosition?
    /// Each subscription and purchase also names where its evidence ends in the log
    /// (`lastEventPosition`). Asked for, since a position is where an event landed, not what it
    /// says: two ledgers fed the same messages in other orders answer alike without it.
    public var evidence: Bool

    public init(id: String, asOf: Int64, environment: AppStoreEnvironment? = nil, atPosition: LogPosition? = nil, evidence: Bool = false) {
        self.id = id
        self.asOf = asOf
        self.environment = environment
        self.atPosition = atPosition
        self.evidence = evidence
    }

    /// `asOf` (an instant; default `now`), `environment`, `atPosition`, `evidence`.
    public init(id: String, _ parameters: some QueryParameterSource, now: Int64) throws(QueryError) {
        self.init(id: id, asOf: try parameters.instant("asOf") ?? now, environment: try parameters.environment(), atPosition: try parameters.position(),
                  evidence: try parameters.isOn("evidence"))
    }
}
