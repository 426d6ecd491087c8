import SubledgerEvents

extension RollupReader {
    /// `Projection.mrr` from activity cells: whole months before `instant`'s month, whole days
    /// before its day, then the changes inside its day.
    func mrr(at instant: Int64, environment: AppStoreEnvironment) throws(Source.Failure) -> MRRReport {
        var report = MRRReport(at: instant, environment: environment.rawValue, rows: [])
        guard let environmentID = environmentID(environment) else { return report }
        var rows: [String: (twelfths: Int64, row: MRRRow)] = [:]
        for (currency, values) in try activity(at: instant, environment: environmentID)
        where values[ActivityField.subscriptions] + values[ActivityField.trials] > 0 {
            let currency = name(currency)
            var entry = rows[currency] ?? (0, MRRRow(currency: currency))
            entry.twelfths += values[ActivityField.twelfths]
            entry.row.activeSubscriptions += Int(values[ActivityField.subscriptions])
            entry.row.activeTrials += Int(values[ActivityField.trials])
            entry.row.activeCommitments += Int(values[ActivityField.commitments])
            entry.row.committedRevenueRemaining += values[ActivityField.committedRevenueRemaining]
            rows[currency] = entry
        }
        report.rows = rows.values.map { entry in
            var row = entry.row
            row.mrr = divideRoundingHalfAwayFromZero(entry.twelfths, 12)
            row.arr = entry.twelfths
            return row
        }.sorted { $0.currency < $1.currency }
        return report
    }

    /// What is active at `instant`, per currency id: the sum of every change at or before it.
    func activity(at instant: Int64, environment: UInt32) throws(Source.Failure) -> [UInt32: RollupValues] {
        let month = UTCCalendar.month(containing: instant)
        let day = UTCCalendar.day(containing: instant)
        let firstDayOfMonth = UTCCalendar.day(containing: UTCCalendar.start(ofMonth: month))
        var sums: [UInt32: RollupValues] = [:]
        for range in [
            RollupRange.buckets(from: .min, through: Int64(month) - 1, of: .activity, environment: environment, granularity: .month),
            .buckets(from: firstDayOfMonth, through: day - 1, of: .activity, environment: environment, granularity: .day),
            .buckets(
                from: UTCCalendar.start(ofDay: day) + 1, through: instant, of: .activity, environment: environment, granularity: .instant),
        ] {
            try source.forEach(in: range) { key, values in sums[key.currency, default: RollupValues()].add(values) }
        }
        return sums
    }
}
