extension RollupSink {
    /// The churn report's counts of one subscription for every whole day and month where it
    /// has any, `activeAtStart` aside (activity cells answer it at any instant).
    mutating func addChurn(of history: SubscriptionHistory, _ timeline: EntitlementTimeline, environment: UInt32) {
        guard !timeline.segments.isEmpty else { return }
        // Every count needs one of these instants in its period: a paid start, the first paid
        // start, a purchase, or a lapse (ending at `end`, counted in the period holding end − 1).
        var instants: [Int64] = []
        instants.reserveCapacity(2 * timeline.segments.count + history.periods.count)
        for segment in timeline.segments {
            instants.append(segment.start)
            if segment.end != .max { instants.append(segment.end - 1) }
        }
        for period in history.periods { instants.append(period.version.purchaseDate) }
        for granularity in ReportGranularity.allCases {
            var buckets = instants.map { granularity.bucket(containing: $0) }
            buckets.sort()
            var previous: Int64?
            for bucket in buckets where bucket != previous {
                previous = bucket
                var row = ChurnRow(period: "")
                row.count(history, timeline, from: granularity.start(ofBucket: bucket), to: granularity.start(ofBucket: bucket + 1))
                let key = RollupKey(family: .churn, environment: environment, granularity: RollupGranularity(granularity), bucket: bucket)
                add(RollupValues(churnEventsOf: row), at: key)
            }
        }
        addCutPeriodChurn(of: history, timeline, environment: environment)
    }

    /// What a period cut inside a month counts that is not a sum of its days (`churnLapse`,
    /// `churnReturn`): a lapse churns only if nothing is entitled at the period's end, and a
    /// paid start reactivates only if the subscription had lapsed and was not paid on both
    /// sides of the period's start. A cut period lies within a month, so each lapse is asked about the day
    /// starts after it up to its month's end, each start about those before it back to its
    /// month's start, and only the changes are kept.
    ///
    /// Assumes, as `SubscriptionHistory.segments()` makes them, segments in time order.
    mutating func addCutPeriodChurn(of history: SubscriptionHistory, _ timeline: EntitlementTimeline, environment: UInt32) {
        let segments = timeline.segments
        let firstPaid = timeline.firstPaidStart ?? .max
        for (index, segment) in segments.enumerated() {
            // `followed` and `paidBefore` spare a renewal the scans of every segment that
            // `isPaidLapse` and `paidEntitled` make: a stretch the next one continues is no lapse.
            let followed = index + 1 < segments.count && segments[index + 1].contains(segment.end)
            if !followed, timeline.isPaidLapse(segment) {
                var row = ChurnRow(period: "")
                row.countChurn(of: segment, in: history)
                let day = UTCCalendar.day(containing: segment.end - 1)
                let month = UTCCalendar.days(ofMonth: UTCCalendar.month(containing: segment.end - 1))
                let offsets = 1...Int(month.upperBound + 1 - day)
                addChanges(of: RollupValues(churnEventsOf: row), family: .churnLapse, day: day, environment: environment, offsets: offsets) { offset in
                    let end = UTCCalendar.start(ofDay: day + Int64(offset))
                    // The fold counts the last paid lapse in the period, if nothing is entitled at its end.
                    return !timeline.entitled(at: end) && !segments[(index + 1)...].prefix { $0.end <= end }.contains { timeline.isPaidLapse($0) }
                }
            }
            let paidBefore = index > 0 && segments[index - 1].isPaid && segments[index - 1].contains(segment.start - 1)
            if segment.isPaid, segment.start > firstPaid, !paidBefore, !timeline.paidEntitled(at: segment.start - 1) {
                var values = RollupValues()
                values[ChurnField.reactivated] = 1
                let day = UTCCalendar.day(containing: segment.start)
                let month = UTCCalendar.days(ofMonth: UTCCalendar.month(containing: segment.start))
                let offsets = 0...Int(day - month.lowerBound)
                addChanges(of: values, family: .churnReturn, day: day, environment: environment, offsets: offsets) { offset in
                    let start = UTCCalendar.start(ofDay: day - Int64(offset))
                    // The fold counts a subscription once: here, at its first paid start in the period.
                    // Starts ascend: the paid starts before this one in the period are those of
                    // the segments from the period's first up to this one.
                    return start > firstPaid && !(timeline.paidEntitled(at: start) && timeline.paidEntitled(at: start - 1))
                        && timeline.hasPaidLapse(notAfter: start)
                        && !segments[timeline.firstIndex(startingAtOrAfter: start)..<index].contains { $0.isPaid }
                }
            }
        }
    }

    /// Adds `values` at each offset where `counts` changes from the offset before (false before
    /// the first), with the sign of the change, so a sum over offsets up to k is what offset k counts.
    private mutating func addChanges(
        of values: RollupValues, family: RollupFamily, day: Int64, environment: UInt32, offsets: ClosedRange<Int>, counts: (Int) -> Bool
    ) {
        var counted = false
        for offset in offsets where counts(offset) != counted {
            counted.toggle()
            var change = RollupValues()
            change.add(values, sign: counted ? 1 : -1)
            add(change, at: RollupKey(family: family, environment: environment, granularity: .day, bucket: day, detail: UInt32(offset)))
        }
    }
}

extension RollupValues {
    init(churnEventsOf row: ChurnRow) {
        self.init()
        self[ChurnField.newPaid] = Int64(row.newPaid)
        self[ChurnField.churned] = Int64(row.churned)
        self[ChurnField.voluntary] = Int64(row.byReason.voluntary)
        self[ChurnField.billingError] = Int64(row.byReason.billingError)
        self[ChurnField.priceIncrease] = Int64(row.byReason.priceIncrease)
        self[ChurnField.productNotForSale] = Int64(row.byReason.productNotForSale)
        self[ChurnField.refund] = Int64(row.byReason.refund)
        self[ChurnField.other] = Int64(row.byReason.other)
        self[ChurnField.reactivated] = Int64(row.reactivated)
        self[ChurnField.trialsStarted] = Int64(row.trialsStarted)
        self[ChurnField.trialsConverted] = Int64(row.trialsConverted)
        self[ChurnField.commitmentsStarted] = Int64(row.commitmentsStarted)
        self[ChurnField.commitmentsCompleted] = Int64(row.commitmentsCompleted)
        self[ChurnField.commitmentsDefaulted] = Int64(row.commitmentsDefaulted)
    }
}

extension ChurnRow {
    mutating func addEvents(_ values: RollupValues) {
        addSumsByDay(values)
        addChurn(values)
        reactivated += Int(values[ChurnField.reactivated])
    }

    /// The counts that a period's days sum to.
    mutating func addSumsByDay(_ values: RollupValues) {
        newPaid += Int(values[ChurnField.newPaid])
        trialsStarted += Int(values[ChurnField.trialsStarted])
        trialsConverted += Int(values[ChurnField.trialsConverted])
        commitmentsStarted += Int(values[ChurnField.commitmentsStarted])
        commitmentsCompleted += Int(values[ChurnField.commitmentsCompleted])
    }

    /// Churned, by reason, and the commitments defaulted with it.
    mutating func addChurn(_ values: RollupValues) {
        churned += Int(values[ChurnField.churned])
        byReason.voluntary += Int(values[ChurnField.voluntary])
        byReason.billingError += Int(values[ChurnField.billingError])
        byReason.priceIncrease += Int(values[ChurnField.priceIncrease])
        byReason.productNotForSale += Int(values[ChurnField.productNotForSale])
        byReason.refund += Int(values[ChurnField.refund])
        byReason.other += Int(values[ChurnField.other])
        commitmentsDefaulted += Int(values[ChurnField.commitmentsDefaulted])
    }
}
