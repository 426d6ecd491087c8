extension RollupSink {
    /// A subscription's membership of its cohort (the month of its first paid period) and, per
    /// paid stretch, +1 at the first month offset whose start it covers and -1 at the first it
    /// no longer does: retained[k] is the sum of the changes up to k.
    mutating func addCohort(of timeline: EntitlementTimeline, environment: UInt32) {
        guard let firstPaid = timeline.firstPaidStart else { return }
        let cohort = UTCCalendar.month(containing: firstPaid)
        func key(offset: Int) -> RollupKey {
            RollupKey(family: .cohort, environment: environment, granularity: .month, bucket: Int64(cohort), detail: UInt32(offset))
        }
        var member = RollupValues()
        member[CohortField.members] = 1
        add(member, at: key(offset: 0))
        // Offset k is measured at the start of month cohort + k + 1.
        func firstOffset(atOrAfter instant: Int64) -> Int {
            max(0, UTCCalendar.month(containing: instant - 1) + 1 - cohort - 1)
        }
        var change = RollupValues()
        for segment in timeline.segments where segment.isPaid {
            let first = firstOffset(atOrAfter: segment.start)
            let end = segment.end == .max ? Int.max : firstOffset(atOrAfter: segment.end)
            guard end > first else { continue }
            change[CohortField.retainedChange] = 1
            add(change, at: key(offset: first))
            if end != .max {
                change[CohortField.retainedChange] = -1
                add(change, at: key(offset: end))
            }
        }
    }
}
