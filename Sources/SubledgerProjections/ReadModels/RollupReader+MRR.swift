import SubledgerCore
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
    ///
    /// Whole months before `instant`'s month, then whole days of its month, then the changes at
    /// single instants of its day, one row each: those up to `instant` added to the days before,
    /// or, in the day's later half, those after it taken from the days through its own. A day of
    /// a large app holds tens of thousands of them, and the dashboard asks at the last
    /// millisecond of each of its buckets, which then reads none.
    func activity(at instant: Int64, environment: UInt32) throws(Source.Failure) -> [UInt32: RollupValues] {
        let month = UTCCalendar.month(containing: instant)
        let day = UTCCalendar.day(containing: instant)
        let firstDayOfMonth = UTCCalendar.day(containing: UTCCalendar.start(ofMonth: month))
        // A day's cell holds the changes at instants in (its start, the next day's start].
        let (dayStart, dayEnd) = (UTCCalendar.start(ofDay: day), UTCCalendar.start(ofDay: day + 1))
        let fromEnd = dayEnd - instant < instant - dayStart
        var sums: [UInt32: RollupValues] = [:]
        for range in [
            RollupRange.buckets(from: .min, through: Int64(month) - 1, of: .activity, environment: environment, granularity: .month),
            .buckets(from: firstDayOfMonth, through: fromEnd ? day : day - 1, of: .activity, environment: environment, granularity: .day),
        ] {
            try source.forEach(in: range) { key, values in sums[key.currency, default: RollupValues()].add(values) }
        }
        let (instants, sign): (RollupRange, Int64) =
            fromEnd
            ? (.buckets(from: instant + 1, through: dayEnd, of: .activity, environment: environment, granularity: .instant), -1)
            : (.buckets(from: dayStart + 1, through: instant, of: .activity, environment: environment, granularity: .instant), 1)
        try source.forEach(in: instants) { key, values in sums[key.currency, default: RollupValues()].add(values, sign: sign) }
        return sums
    }
}
