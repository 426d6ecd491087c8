import SubledgerEvents

/// `customer ID` / `GET /v1/customers/{id}`: one customer's state at an instant.
public struct CustomerQuery: Sendable, Equatable {
    /// An appAccountToken, originalTransactionId or transactionId.
    public var id: String
    /// Epoch milliseconds.
    public var asOf: Int64
    /// nil: every environment.
    public var environment: AppStoreEnvironment?

    public init(id: String, asOf: Int64, environment: AppStoreEnvironment? = nil) {
        self.id = id
        self.asOf = asOf
        self.environment = environment
    }

    /// `asOf` (an instant; default `now`), `environment`.
    public init(id: String, _ parameters: some QueryParameterSource, now: Int64) throws(QueryError) {
        self.init(id: id, asOf: try parameters.instant("asOf") ?? now, environment: try parameters.environment())
    }
}
