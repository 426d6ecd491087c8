/// `report churn` / `GET /v1/reports/churn`: churn, trials and commitments per period.
public struct ChurnQuery: Sendable, Equatable {
    public var from: UTCDay
    public var to: UTCDay
    public var by: ReportGranularity
    /// What has happened by this instant is counted (see `ProjectionReader.churn(from:to:by:scope:now:)`);
    /// nil counts every lapse the ledger knows of, later ones included.
    public var now: Int64?
    public var filter: ReportFilter

    public init(from: UTCDay, to: UTCDay, by: ReportGranularity = .month, now: Int64? = nil, filter: ReportFilter = ReportFilter()) {
        self.from = from
        self.to = to
        self.by = by
        self.now = now
        self.filter = filter
    }

    /// `from`, `to` (required days), `by`, `environment`, `atPosition`.
    public init(_ parameters: some QueryParameterSource, now: Int64) throws(QueryError) {
        let filter = try ReportFilter(parameters)
        let (from, to) = (try parameters.day("from"), try parameters.day("to"))
        try parameters.requireOrdered(from: from, to: to)
        let by = try parameters.granularity()
        try parameters.requireSpan(from: from, to: to, by: by)
        self.init(from: from, to: to, by: by, now: now, filter: filter)
    }
}
