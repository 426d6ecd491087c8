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
        newPaid += Int(values[ChurnField.newPaid])
        churned += Int(values[ChurnField.churned])
        byReason.voluntary += Int(values[ChurnField.voluntary])
        byReason.billingError += Int(values[ChurnField.billingError])
        byReason.priceIncrease += Int(values[ChurnField.priceIncrease])
        byReason.productNotForSale += Int(values[ChurnField.productNotForSale])
        byReason.refund += Int(values[ChurnField.refund])
        byReason.other += Int(values[ChurnField.other])
        reactivated += Int(values[ChurnField.reactivated])
        trialsStarted += Int(values[ChurnField.trialsStarted])
        trialsConverted += Int(values[ChurnField.trialsConverted])
        commitmentsStarted += Int(values[ChurnField.commitmentsStarted])
        commitmentsCompleted += Int(values[ChurnField.commitmentsCompleted])
        commitmentsDefaulted += Int(values[ChurnField.commitmentsDefaulted])
    }
}
