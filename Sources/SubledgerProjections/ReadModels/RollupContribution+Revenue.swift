extension RollupSink {
    /// Every booking of every sale, per day and per month, under both refund conventions:
    /// proceeds are rounded per transaction and period, so months cannot be summed from days.
    mutating func addRevenue(of history: SubscriptionHistory, environment: UInt32, smallBusiness: Bool) {
        history.forEachSale(smallBusiness: smallBusiness) { transaction, rate in
            for convention in RefundConvention.allCases {
                for granularity in ReportGranularity.allCases {
                    transaction.forEachRevenueBooking(convention, by: granularity, in: Int64.min..<Int64.max) { booking in
                        let key = RollupKey(
                            family: .revenue(convention), environment: environment, granularity: RollupGranularity(granularity),
                            bucket: booking.bucket, currency: transaction.version.currency, product: transaction.version.productId)
                        add(RollupValues(booking, rate: rate), at: key)
                    }
                }
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
