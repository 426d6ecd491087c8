/// `report churn` / `GET /v1/reports/churn`: churn, trials and commitments per period.
public struct ChurnQuery: Sendable, Equatable {
    public var from: UTCDay
    public var to: UTCDay
    public var by: ReportGranularity
    public var filter: ReportFilter

    public init(from: UTCDay, to: UTCDay, by: ReportGranularity = .month, filter: ReportFilter = ReportFilter()) {
        self.from = from
        self.to = to
        self.by = by
        self.filter = filter
    }

    /// `from`, `to` (required days), `by`, `environment`, `atPosition`.
    public init(_ parameters: some QueryParameterSource) throws(QueryError) {
        let filter = try ReportFilter(parameters)
        let (from, to) = (try parameters.day("from"), try parameters.day("to"))
        try parameters.requireOrdered(from: from, to: to)
        self.init(from: from, to: to, by: try parameters.granularity(), filter: filter)
    }
}
