/// `report cohorts` / `GET /v1/reports/cohorts`: retention by month of first payment.
public struct CohortQuery: Sendable, Equatable {
    public var from: UTCMonth
    public var to: UTCMonth
    /// Months that have not begun by this instant get no retention figure.
    public var now: Int64
    public var filter: ReportFilter

    public init(from: UTCMonth, to: UTCMonth, now: Int64, filter: ReportFilter = ReportFilter()) {
        self.from = from
        self.to = to
        self.now = now
        self.filter = filter
    }

    /// `from`, `to` (required months), `at` (retention as of that instant, at most now: what the
    /// dashboard shows for a period in the past; months beginning after it get no figure, and a
    /// cohort's size counts all its members), `environment`, `atPosition`.
    public init(_ parameters: some QueryParameterSource, now: Int64) throws(QueryError) {
        let filter = try ReportFilter(parameters)
        let (from, to) = (try parameters.month("from"), try parameters.month("to"))
        try parameters.requireOrdered(from: from, to: to)
        try parameters.requireSpan(from: from, to: to)
        self.init(from: from, to: to, now: min(now, try parameters.instant("at") ?? now), filter: filter)
    }
}
