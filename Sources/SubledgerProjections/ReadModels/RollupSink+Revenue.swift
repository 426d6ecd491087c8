extension RollupSink {
    /// Every booking of every sale, per day and per month, under both refund conventions:
    /// proceeds are rounded per transaction and period, so months cannot be summed from days;
    /// what a cut month needs besides its days' rows is in `proceedsRounding` cells.
    mutating func addRevenue(of history: SubscriptionHistory, environment: UInt32, smallBusiness: Bool) {
        var days: [RevenueBooking] = []
        history.forEachSale(smallBusiness: smallBusiness) { transaction, rate in
            let key = RollupKey(
                family: .proceedsRounding, environment: environment, granularity: .day, bucket: 0, currency: transaction.version.currency,
                product: transaction.version.productId)
            for convention in RefundConvention.allCases {
                for granularity in ReportGranularity.allCases {
                    transaction.forEachRevenueBooking(convention, by: granularity, in: Int64.min..<Int64.max) { booking in
                        var key = key
                        key.family = .revenue(convention)
                        key.granularity = RollupGranularity(granularity)
                        key.bucket = booking.bucket
                        add(RollupValues(booking, rate: rate), at: key)
                        if convention == .refundDate, granularity == .day, !transaction.refundChanges.isEmpty { days.append(booking) }
                    }
                }
            }
            if days.count > 1 { addProceedsRounding(of: days, rate: rate, at: key) }
            days.removeAll(keepingCapacity: true)
        }
    }

    /// The `proceedsRounding` cells of one transaction's bookings by day. A cut keeps a run of
    /// them, i...j, and the fold rounds their sum once, R(Σ) − Σ R apart from the day rows; the
    /// cell of the pair (i, j) holds that correction less those of the runs inside it, so the
    /// cells of the pairs a cut keeps sum to its own.
    private mutating func addProceedsRounding(of days: [RevenueBooking], rate: Int64, at key: RollupKey) {
        let days = days.sorted { $0.bucket < $1.bucket }
        func correction(_ first: Int, _ last: Int) -> Int64 {
            guard first < last else { return 0 }
            var (sum, rounded): (Int64, Int64) = (0, 0)
            for day in days[first...last] {
                sum += day.sales - day.refunds
                rounded += day.proceeds(rate: rate)
            }
            return ProceedsRate.proceeds(sum, rate: rate) - rounded
        }
        for first in days.indices {
            let month = UTCCalendar.month(containing: UTCCalendar.start(ofDay: days[first].bucket))
            for last in (first + 1)..<days.count where UTCCalendar.month(containing: UTCCalendar.start(ofDay: days[last].bucket)) == month {
                let change = correction(first, last) - correction(first + 1, last) - correction(first, last - 1) + correction(first + 1, last - 1)
                guard change != 0 else { continue }
                var values = RollupValues()
                values[RevenueField.proceeds] = change
                var key = key
                key.bucket = days[first].bucket
                key.detail = UInt32(days[last].bucket - days[first].bucket)
                add(values, at: key)
            }
        }
    }
}

extension RollupValues {
    init(_ booking: RevenueBooking, rate: Int64) {
        self.init()
        self[RevenueField.grossSales] = booking.sales
        self[RevenueField.refunds] = booking.refunds
        self[RevenueField.proceeds] = booking.proceeds(rate: rate)
        self[RevenueField.transactions] = Int64(booking.sold)
        self[RevenueField.refundedTransactions] = Int64(booking.refunded)
        self[RevenueField.bookings] = 1
    }
}
