extension RollupSink {
    /// What `segment` makes active, added where it starts and taken back where it ends
    /// (half-open), so the sum of the changes at instants up to T is what is active at T.
    ///
    /// Each change is kept three times: per month and per day, both covering
    /// `(bucket start, next bucket start]` so that a sum up to a bucket's start reads whole
    /// buckets, and per instant for the last partial day.
    mutating func addActivity(of segment: EntitlementSegment, share: MRRShare?, in history: SubscriptionHistory, environment: UInt32) {
        var values = RollupValues()
        if let share {
            values[ActivityField.twelfths] = share.twelfths
            values[ActivityField.subscriptions] = Int64(share.subscriptions)
            values[ActivityField.trials] = Int64(share.trials)
            values[ActivityField.commitments] = Int64(share.commitments)
            values[ActivityField.committedRevenueRemaining] = share.committedRevenueRemaining
        }
        // As `EntitlementTimeline.paidEntitled` counts.
        if segment.isPaid, !segment.isFamilyShared { values[ActivityField.paidEntitled] = 1 }
        guard !values.isZero else { return }
        let currency = share?.currency ?? history.periods[segment.period].version.currency
        addActivityChange(values, at: segment.start, currency: currency, environment: environment)
        if segment.end != .max {
            var ending = RollupValues()
            ending.add(values, sign: -1)
            addActivityChange(ending, at: segment.end, currency: currency, environment: environment)
        }
    }

    /// The month and day cells of an activity change at `instant` (see `addActivity`).
    mutating func addActivityPeriods(_ values: RollupValues, at instant: Int64, currency: UInt32, environment: UInt32) {
        let before = instant - 1
        var key = RollupKey(
            family: .activity, environment: environment, granularity: .month, bucket: Int64(UTCCalendar.month(containing: before)),
            currency: currency)
        add(values, at: key)
        key.granularity = .day
        key.bucket = UTCCalendar.day(containing: before)
        add(values, at: key)
    }

    mutating func addActivityChange(_ values: RollupValues, at instant: Int64, currency: UInt32, environment: UInt32) {
        addActivityPeriods(values, at: instant, currency: currency, environment: environment)
        add(values, at: RollupKey(family: .activity, environment: environment, granularity: .instant, bucket: instant, currency: currency))
    }
}
