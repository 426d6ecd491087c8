/// `report mrr` / `GET /v1/reports/mrr`: MRR, ARR and active subscriptions at an instant, or at
/// the end of each day or month of a range.
public struct MRRQuery: Sendable, Equatable {
    /// Epoch milliseconds; with `series`, the instant no point is taken after (now).
    public var at: Int64
    /// Set by `from` and `to`: a point at the end of each period.
    public var series: Series?
    public var filter: ReportFilter

    /// The days or months whose ends a series of MRR reports is taken at: what the dashboard's
    /// chart shows, which one report at an instant could not give its CSV link.
    public struct Series: Sendable, Equatable {
        public var from: UTCDay
        public var to: UTCDay
        public var by: ReportGranularity

        public init(from: UTCDay, to: UTCDay, by: ReportGranularity) {
            self.from = from
            self.to = to
            self.by = by
        }

        public static let maximumCount = 400

        /// The points the series has at `now`: its periods from `from` to `to` begun by then.
        public func count(now: Int64) -> Int {
            guard from.start <= now else { return 0 }
            let last = min(to, UTCDay(containing: now))
            switch by {
            case .day: return Int(last.number - from.number) + 1
            case .month: return UTCMonth(containing: last.start).number - UTCMonth(containing: from.start).number + 1
            }
        }

        /// The instant of each period's point: its last millisecond, or `now` when that is
        /// earlier; a period that begins after `now` has none (MRR then would be a forecast).
        /// A month cut by `from` or `to` is the part of it inside them.
        public func instants(now: Int64) -> [Int64] {
            var instants: [Int64] = []
            var first = from
            while first <= to, first.start <= now {
                let last = by == .day ? first : min(to, UTCMonth(containing: first.start).lastDay)
                instants.append(min(now, last.lastInstant))
                first = UTCDay(number: last.number + 1)
            }
            return instants
        }
    }

    public init(at: Int64, series: Series? = nil, filter: ReportFilter = ReportFilter()) {
        self.at = at
        self.series = series
        self.filter = filter
    }

    /// `at` (an instant; default `now`), or `from` and `to` (days) with `by`; `environment`,
    /// `atPosition`.
    public init(_ parameters: some QueryParameterSource, now: Int64) throws(QueryError) {
        let filter = try ReportFilter(parameters)
        guard parameters.value("from") != nil || parameters.value("to") != nil else {
            if parameters.value("by") != nil {
                throw QueryError(kind: .badParameter, code: "invalid_by", detail: "\(parameters.spelling("by")) cuts a series: give it with \(parameters.spelling("from")) and \(parameters.spelling("to"))")
            }
            self.init(at: try parameters.instant("at") ?? now, filter: filter)
            return
        }
        if parameters.value("at") != nil {
            throw QueryError(kind: .badParameter, code: "invalid_at", detail: "\(parameters.spelling("at")) asks for one instant, \(parameters.spelling("from")) and \(parameters.spelling("to")) for the end of each period: give one or the other")
        }
        let by = try parameters.granularity()
        let (from, to) = (try parameters.day("from"), try parameters.day("to"))
        try parameters.requireOrdered(from: from, to: to)
        let series = Series(from: from, to: to, by: by)
        // Each point is a report of its own (at a log position, a pass over every timeline's
        // periods), where a report's periods are summed from the same rows. Periods not begun
        // have no point, so a range reaching past today costs nothing for that part.
        let points = series.count(now: now)
        guard points <= Series.maximumCount else {
            throw QueryError(kind: .badParameter, code: "invalid_to", detail: "an MRR series has at most \(Series.maximumCount) points, not \(points): by month, or a shorter range")
        }
        self.init(at: now, series: series, filter: filter)
    }
}
