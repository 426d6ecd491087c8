import SubledgerEvents

extension RollupReader {
    /// `Projection.churn` from churn and activity cells; nil when a month is cut by `from` or
    /// `to`: churn is not a sum by day (a subscription that lapses and comes back within a
    /// period has not churned in it), so a cut month is folded.
    func churn(from: UTCDay, to: UTCDay, by granularity: ReportGranularity = .month, environment: AppStoreEnvironment)
        throws(Source.Failure) -> ChurnReport?
    {
        var report = ChurnReport(from: from, to: to, by: granularity, environment: environment.rawValue, rows: [])
        guard from <= to else { return report }
        guard let buckets = Self.wholeBuckets(from: from, to: to, by: granularity) else { return nil }
        guard let environmentID = environmentID(environment) else { return report }
        let periods = granularity.periods(from: from, to: to)
        var rows = periods.map { ChurnRow(period: $0.label) }
        let cellGranularity = RollupGranularity(granularity)
        try source.forEach(in: .buckets(buckets, of: .churn, environment: environmentID, granularity: cellGranularity)) { key, values in
            rows[Int(key.bucket - buckets.lowerBound)].addEvents(values)
        }
        // Paid and entitled at each period's start: at the first, then bucket by bucket (an
        // activity bucket holds the changes up to and including the next bucket's start).
        var changes = [Int64](repeating: 0, count: rows.count)
        try source.forEach(in: .buckets(buckets, of: .activity, environment: environmentID, granularity: cellGranularity)) { key, values in
            changes[Int(key.bucket - buckets.lowerBound)] += values[ActivityField.paidEntitled]
        }
        var active = try activity(at: periods[0].start, environment: environmentID).values.reduce(0) { $0 + $1[ActivityField.paidEntitled] }
        for index in rows.indices {
            rows[index].activeAtStart = Int(active)
            active += changes[index]
            rows[index].churnRate = rows[index].activeAtStart == 0 ? nil : Double(rows[index].churned) / Double(rows[index].activeAtStart)
            rows[index].trialConversionRate =
                rows[index].trialsStarted == 0 ? nil : Double(rows[index].trialsConverted) / Double(rows[index].trialsStarted)
        }
        report.rows = rows.filter(\.hasActivity)
        return report
    }
}
