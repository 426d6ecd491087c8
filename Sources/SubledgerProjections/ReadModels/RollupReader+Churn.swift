import SubledgerEvents

extension RollupReader {
    /// `Projection.churn` from churn and activity cells. A month cut by `from` or `to` is not a
    /// sum of its days (a subscription that lapses and comes back within it has not churned in
    /// it): it reads the day cells for the counts that are, and the lapses and returns of its
    /// days for the others (`cutMonth`).
    func churn(from: UTCDay, to: UTCDay, by granularity: ReportGranularity = .month, environment: AppStoreEnvironment)
        throws(Source.Failure) -> ChurnReport
    {
        var report = ChurnReport(from: from, to: to, by: granularity, environment: environment.rawValue, rows: [])
        guard from <= to, let environmentID = environmentID(environment) else { return report }
        var rows: [ChurnRow] = []
        if let buckets = Self.wholeBuckets(from: from, to: to, by: granularity) {
            rows = try churnRows(buckets, by: granularity, environment: environmentID)
        } else {
            for piece in Self.monthPieces(from: from, to: to) {
                if piece.whole, let months = Self.wholeBuckets(from: piece.from, to: piece.to, by: .month) {
                    rows += try churnRows(months, by: .month, environment: environmentID)
                } else {
                    rows.append(try cutMonth(from: piece.from, to: piece.to, environment: environmentID))
                }
            }
        }
        report.rows = rows.filter(\.hasActivity).map { $0.withRates() }
        return report
    }

    /// One row per bucket, whole buckets all.
    private func churnRows(_ buckets: ClosedRange<Int64>, by granularity: ReportGranularity, environment: UInt32) throws(Source.Failure) -> [ChurnRow] {
        var rows = buckets.map { ChurnRow(period: granularity.label(ofBucket: $0)) }
        let cellGranularity = RollupGranularity(granularity)
        try source.forEach(in: .buckets(buckets, of: .churn, environment: environment, granularity: cellGranularity)) { key, values in
            rows[Int(key.bucket - buckets.lowerBound)].addEvents(values)
        }
        // Paid and entitled at each period's start: at the first, then bucket by bucket (an
        // activity bucket holds the changes up to and including the next bucket's start).
        var changes = [Int64](repeating: 0, count: rows.count)
        try source.forEach(in: .buckets(buckets, of: .activity, environment: environment, granularity: cellGranularity)) { key, values in
            changes[Int(key.bucket - buckets.lowerBound)] += values[ActivityField.paidEntitled]
        }
        var active = try activeAtStart(granularity.start(ofBucket: buckets.lowerBound), environment: environment)
        for index in rows.indices {
            rows[index].activeAtStart = Int(active)
            active += changes[index]
        }
        return rows
    }

    /// The row of the days `from`...`to` of one month: its day cells' sums by day, the lapses of
    /// those days that count at the end of `to`, the returns that count from the start of `from`.
    private func cutMonth(from: UTCDay, to: UTCDay, environment: UInt32) throws(Source.Failure) -> ChurnRow {
        var row = ChurnRow(period: UTCMonth(containing: from.start).description)
        try source.forEach(in: .buckets(from.number...to.number, of: .churn, environment: environment, granularity: .day)) { _, values in
            row.addSumsByDay(values)
        }
        let end = to.number + 1
        try source.forEach(in: .buckets(from.number...to.number, of: .churnLapse, environment: environment, granularity: .day)) { key, values in
            if Int64(key.detail) <= end - key.bucket { row.addChurn(values) }
        }
        try source.forEach(in: .buckets(from.number...to.number, of: .churnReturn, environment: environment, granularity: .day)) { key, values in
            if Int64(key.detail) <= key.bucket - from.number { row.reactivated += Int(values[ChurnField.reactivated]) }
        }
        row.activeAtStart = Int(try activeAtStart(from.start, environment: environment))
        return row
    }

    private func activeAtStart(_ instant: Int64, environment: UInt32) throws(Source.Failure) -> Int64 {
        try activity(at: instant, environment: environment).values.reduce(0) { $0 + $1[ActivityField.paidEntitled] }
    }
}
