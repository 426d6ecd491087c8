import SubledgerEvents

extension RollupReader {
    /// `Projection.cohorts` from cohort cells.
    func cohorts(from: UTCMonth, to: UTCMonth, now: Int64, environment: AppStoreEnvironment) throws(Source.Failure) -> CohortReport {
        var report = CohortReport(from: from, to: to, environment: environment.rawValue, at: now, rows: [])
        guard from <= to, let environmentID = environmentID(environment) else { return report }
        // Cohort → (members, retention changes by offset); cells come by cohort, then offset.
        var cohorts: [(cohort: Int, members: Int64, changes: [(offset: Int, change: Int64)])] = []
        let range = RollupRange.buckets(Int64(from.number)...Int64(to.number), of: .cohort, environment: environmentID, granularity: .month)
        try source.forEach(in: range) { key, values in
            if cohorts.last?.cohort != Int(key.bucket) { cohorts.append((Int(key.bucket), 0, [])) }
            cohorts[cohorts.count - 1].members += values[CohortField.members]
            cohorts[cohorts.count - 1].changes.append((Int(key.detail), values[CohortField.retainedChange]))
        }
        for (cohort, members, changes) in cohorts where members > 0 && CohortReport.hasBegun(cohort, at: now) {
            var retained: [Int] = []
            var current: Int64 = 0
            var next = changes.startIndex
            while UTCCalendar.start(ofMonth: cohort + retained.count + 1) <= now {
                while next < changes.endIndex, changes[next].offset <= retained.count {
                    current += changes[next].change
                    next += 1
                }
                retained.append(Int(current))
            }
            report.rows.append(CohortRow(cohort: UTCMonth(number: cohort).description, size: Int(members), retained: retained))
        }
        return report
    }
}
