/// Reports from the rollup rows (O(periods × currencies × products) rows read, whatever the
/// history; a month cut by `from`/`to` from the day rows of the days it keeps), or, for the
/// audit path (`atPosition`), by folding the environment's timelines as the ledger knew them, a
/// part at a time (at the log's end, from the rollups if the database has folded all of it).
extension ProjectionReader {
    /// As `Projection.revenue(from:to:by:byProduct:refunds:smallBusiness:scope:)`.
    public func revenue(
        from: UTCDay, to: UTCDay, by granularity: ReportGranularity = .month, byProduct: Bool = false,
        refunds convention: RefundConvention = .refundDate, smallBusiness: Bool = false, scope: ReportScope
    ) throws(ProjectionError) -> RevenueReport {
        // At a position the fold applies `smallBusiness`: the rollups answer only if made under it.
        let madeAlike = scope.logEnd.map { $0.settings.smallBusiness == smallBusiness } ?? true
        if madeAlike, let report = try fromRollups(scope, { rollups throws(ProjectionError) in
            try rollups.revenue(from: from, to: to, by: granularity, byProduct: byProduct, refunds: convention, environment: scope.environment)
        }) { return report }
        var report = RevenueReport(from: from, to: to, by: granularity, refunds: convention, environment: scope.environment.rawValue, rows: [])
        try forEachPart(of: scope.environment) { part in
            report.merge(part.revenue(
                from: from, to: to, by: granularity, byProduct: byProduct, refunds: convention, smallBusiness: smallBusiness, scope: scope))
        }
        return report
    }

    /// As `Projection.mrr(at:scope:)`.
    public func mrr(at instant: Int64, scope: ReportScope) throws(ProjectionError) -> MRRReport {
        try mrr(at: [instant], scope: scope)[0]
    }

    /// `mrr(at:scope:)` at each of `instants`; at a log position each part's timelines are
    /// folded and resolved once for all of them.
    public func mrr(at instants: [Int64], scope: ReportScope) throws(ProjectionError) -> [MRRReport] {
        if let reports = try fromRollups(scope, { rollups throws(ProjectionError) in
            var reports: [MRRReport] = []
            for instant in instants { reports.append(try rollups.mrr(at: instant, environment: scope.environment)) }
            return reports
        }) { return reports }
        var reports = instants.map { MRRReport(at: $0, environment: scope.environment.rawValue, rows: []) }
        try forEachPart(of: scope.environment) { part in
            for (index, report) in part.mrr(at: instants, scope: scope).enumerated() { reports[index].merge(report) }
        }
        return reports
    }

    /// As `Projection.churn(from:to:by:scope:)`, for what has happened by `now` when it is given:
    /// whole days, through yesterday. Periods that begin today or later are left out, and a
    /// month in progress is cut at the end of yesterday. A subscription whose period ends later
    /// this month, or later today, and that may well renew, has not churned yet; counted at its
    /// expiry, it made the month in progress look like a churn spike (the rollups know a lapse
    /// by its day, not its instant: today's are counted tomorrow).
    public func churn(from: UTCDay, to: UTCDay, by granularity: ReportGranularity = .month, scope: ReportScope, now: Int64?) throws(ProjectionError) -> ChurnReport {
        let yesterday = now.map { UTCDay(number: UTCDay(containing: $0).number - 1) }
        guard let yesterday, to > yesterday else { return try churn(from: from, to: to, by: granularity, scope: scope) }
        var report = ChurnReport(from: from, to: to, by: granularity, environment: scope.environment.rawValue, rows: [])
        report.countedThrough = yesterday
        guard from <= yesterday else { return report }
        report.rows = try churn(from: from, to: yesterday, by: granularity, scope: scope).rows
        return report
    }

    /// As `Projection.churn(from:to:by:scope:)`.
    public func churn(from: UTCDay, to: UTCDay, by granularity: ReportGranularity = .month, scope: ReportScope) throws(ProjectionError) -> ChurnReport {
        if let report = try fromRollups(scope, { rollups throws(ProjectionError) in try rollups.churn(from: from, to: to, by: granularity, environment: scope.environment) }) {
            return report
        }
        var report = ChurnReport(from: from, to: to, by: granularity, environment: scope.environment.rawValue, rows: [])
        try forEachPart(of: scope.environment) { report.merge($0.churn(from: from, to: to, by: granularity, scope: scope)) }
        return report
    }

    /// As `Projection.cohorts(from:to:now:scope:)`.
    public func cohorts(from: UTCMonth, to: UTCMonth, now: Int64, scope: ReportScope) throws(ProjectionError) -> CohortReport {
        if let report = try fromRollups(scope, { rollups throws(ProjectionError) in try rollups.cohorts(from: from, to: to, now: now, environment: scope.environment) }) {
            return report
        }
        var report = CohortReport(from: from, to: to, environment: scope.environment.rawValue, at: now, rows: [])
        try forEachPart(of: scope.environment) { report.merge($0.cohorts(from: from, to: to, now: now, scope: scope)) }
        return report
    }

    /// `answer` from the rollups, or nil where the report must fold instead. Without a position
    /// the rollups always answer; at the log's end, when the database has folded through its
    /// last record under the settings a fold would use. That is asked before the rows are read
    /// and again after: every commit of the fold moves the checkpoint, so one in between sends
    /// the report back to folding.
    private func fromRollups<Report>(
        _ scope: ReportScope, _ answer: (RollupReader<DatabaseRollups>) throws(ProjectionError) -> Report
    ) throws(ProjectionError) -> Report? {
        guard scope.atPosition != nil else { return try answer(rollups()) }
        guard let end = scope.logEnd else { return nil }
        func foldedThrough() throws(ProjectionError) -> Bool {
            try read { _, _, header in header.checkpoint == end.lastRecord && end.settings.matches(header.settings) }
        }
        guard try foldedThrough() else { return nil }
        let report = try answer(rollups())
        return try foldedThrough() ? report : nil
    }

    private func rollups() throws(ProjectionError) -> RollupReader<DatabaseRollups> {
        let table = try read { _, table, _ in table }
        return RollupReader(source: DatabaseRollups(database: database, knownStrings: table.count), strings: table)
    }
}
