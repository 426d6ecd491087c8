/// What one transaction books in one report period: the reports' unit of rounding.
struct RevenueBooking {
    var bucket: Int64
    var sales: Int64
    var refunds: Int64
    /// 1 when the purchase itself is booked here.
    var sold: Int
    /// Refunds booked here, less reversals.
    var refunded: Int

    /// Proceeds are rounded per transaction and period, never on sums.
    func proceeds(rate: Int64) -> Int64 {
        ProceedsRate.proceeds(sales - refunds, rate: rate)
    }
}

extension ResolvedTransaction {
    /// Calls `body` with each period this transaction books money in under `convention`,
    /// counting what happens inside `window` only; nothing unless it is revenue.
    ///
    /// Most transactions are never refunded and book their sale alone, without the array the
    /// others gather their bookings in: a rebuild asks four times for each of millions.
    func forEachRevenueBooking(
        _ convention: RefundConvention, by granularity: ReportGranularity, in window: Range<Int64>, _ body: (RevenueBooking) -> Void
    ) {
        guard version.isRevenue, version.purchaseDate != .absent else { return }
        func booking(at instant: Int64, sales: Int64, refunds: Int64, refunded: Int) -> RevenueBooking? {
            guard window.contains(instant) else { return nil }
            return RevenueBooking(
                bucket: granularity.bucket(containing: instant), sales: sales, refunds: refunds, sold: sales > 0 ? 1 : 0, refunded: refunded)
        }
        let sale = booking(at: version.purchaseDate, sales: version.price, refunds: 0, refunded: 0)
        // A refund of the last version is always among the changes (`ResolvedTransaction.init`).
        if refundChanges.isEmpty {
            if let sale { body(sale) }
            return
        }
        var bookings: [RevenueBooking] = []
        func book(_ new: RevenueBooking?) {
            guard let new else { return }
            if let index = bookings.firstIndex(where: { $0.bucket == new.bucket }) {
                bookings[index].sales += new.sales
                bookings[index].refunds += new.refunds
                bookings[index].sold += new.sold
                bookings[index].refunded += new.refunded
            } else {
                bookings.append(new)
            }
        }
        book(sale)
        switch convention {
        case .refundDate:
            for change in refundChanges {
                switch change {
                case .refunded(let at, let amount, let standing, let familyRevoke) where !familyRevoke:
                    // A refund topped up (prorated, then full) is one refunded transaction.
                    book(booking(at: at, sales: 0, refunds: amount, refunded: amount == standing ? 1 : 0))
                case .reversed(let at, let amount, let familyRevoke) where !familyRevoke:
                    // Undoes the refund where it is booked: money and count alike.
                    book(booking(at: at, sales: 0, refunds: -amount, refunded: -1))
                default:
                    break
                }
            }
        case .original:
            if version.isRefund { book(booking(at: version.purchaseDate, sales: 0, refunds: version.refundedAmount, refunded: 1)) }
        }
        for booking in bookings { body(booking) }
    }
}

extension SubscriptionHistory {
    /// Every transaction that may book revenue, with its proceeds rate.
    func forEachSale(smallBusiness: Bool, _ body: (ResolvedTransaction, _ rate: Int64) -> Void) {
        let rates = smallBusiness ? [] : proceedsRates()
        for (index, period) in periods.enumerated() {
            body(period, smallBusiness ? ProceedsRate.smallBusiness : rates[index])
        }
        for purchase in purchases {
            body(purchase, smallBusiness ? ProceedsRate.smallBusiness : ProceedsRate.firstYear)
        }
    }
}
