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

    /// Adds the (finished) `instants` to their month and day cells. In key order a day's changes
    /// come together, so each day's sum per currency is added once rather than every change.
    mutating func addActivityPeriods(of instants: ActivityInstants) {
        var day: (environment: UInt32, number: Int64, instant: Int64)?
        var sums: [ActivityInstants.Change] = []
        func addDay() {
            guard let day else { return }
            for sum in sums where !sum.isZero {
                addActivityPeriods(sum.values, at: day.instant, currency: sum.currency, environment: day.environment)
            }
            sums.removeAll(keepingCapacity: true)
        }
        for change in instants.changes {
            let number = UTCCalendar.day(containing: change.instant - 1)
            if day?.environment != change.environment || day?.number != number {
                addDay()
                day = (change.environment, number, change.instant)
            }
            // A day holds changes in a few currencies: a scan finds the one.
            if let index = sums.firstIndex(where: { $0.currency == change.currency }) {
                sums[index].add(change)
            } else {
                sums.append(change)
            }
        }
        addDay()
    }
}
