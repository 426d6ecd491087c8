/// `report mrr` / `GET /v1/reports/mrr`: MRR, ARR and active subscriptions at an instant.
public struct MRRQuery: Sendable, Equatable {
    /// Epoch milliseconds.
    public var at: Int64
    public var filter: ReportFilter

    public init(at: Int64, filter: ReportFilter = ReportFilter()) {
        self.at = at
        self.filter = filter
    }

    /// `at` (an instant; default `now`), `environment`, `atPosition`.
    public init(_ parameters: some QueryParameterSource, now: Int64) throws(QueryError) {
        let filter = try ReportFilter(parameters)
        self.init(at: try parameters.instant("at") ?? now, filter: filter)
    }
}
