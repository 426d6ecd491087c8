/// Which period a refund is booked in.
public enum RefundConvention: String, Sendable, Codable, CaseIterable {
    /// By `revocationDate` (Apple's convention); a reversal books a negative refund in its own
    /// period.
    case refundDate = "refund-date"
    /// In the original purchase's period (RevenueCat's convention); a reversal removes it.
    case original
}

/// `report revenue --json`.
public struct RevenueReport: Sendable, Equatable {
    public var from: UTCDay
    public var to: UTCDay
    public var by: ReportGranularity
    public var refunds: RefundConvention
    public var environment: String
    /// By period, currency, then product; only rows with some activity.
    public var rows: [RevenueRow]
}

public struct RevenueRow: Sendable, Equatable {
    /// `2026-03` or `2026-03-01`.
    public var period: String
    public var currency: String
    /// Set only when the report is by product.
    public var productId: String?
    public var grossSales: Int64
    public var refunds: Int64
    public var net: Int64
    public var proceeds: Int64
    /// Paid transactions purchased in the period (refunds do not reduce it).
    public var transactions: Int
    /// Refunds booked in the period.
    public var refundedTransactions: Int

    public init(
        period: String, currency: String, productId: String?, grossSales: Int64, refunds: Int64, net: Int64,
        proceeds: Int64, transactions: Int, refundedTransactions: Int
    ) {
        self.period = period
        self.currency = currency
        self.productId = productId
        self.grossSales = grossSales
        self.refunds = refunds
        self.net = net
        self.proceeds = proceeds
        self.transactions = transactions
        self.refundedTransactions = refundedTransactions
    }
}

extension Projection {
    /// Sales, refunds, net and proceeds per period and currency over `from`...`to` (whole UTC
    /// days, inclusive).
    ///
    /// A paid transaction is a unique `transactionId` with `price` > 0, not family-shared; it
    /// counts at its latest known version. Proceeds are (sales − refunds) × the rate, rounded
    /// per transaction and period, half away from zero: 85 % with `smallBusiness`, else 85 %
    /// after one year of paid service in the subscription group, else 70 %.
    public func revenue(
        from: UTCDay, to: UTCDay, by granularity: ReportGranularity = .month, byProduct: Bool = false,
        refunds convention: RefundConvention = .refundDate, smallBusiness: Bool = false, scope: ReportScope
    ) -> RevenueReport {
        let window = from.start..<UTCDay(number: to.number + 1).start
        var rows: [RowKey: RevenueRow] = [:]

        func book(_ transaction: ResolvedTransaction, rate: Int64) {
            let version = transaction.version
            guard version.isRevenue, version.purchaseDate != .absent else { return }
            // Per transaction: (instant, sales, refunds, refunded count), merged by bucket below.
            var entries: [(at: Int64, sales: Int64, refunds: Int64, refunded: Int)] = [(version.purchaseDate, version.price, 0, 0)]
            switch convention {
            case .refundDate:
                for change in transaction.refundChanges {
                    switch change {
                    case .refunded(let at, let amount, let familyRevoke) where !familyRevoke:
                        entries.append((at, 0, amount, 1))
                    case .reversed(let at, let amount, let familyRevoke) where !familyRevoke:
                        // Undoes the refund where it is booked: money and count alike.
                        entries.append((at, 0, -amount, -1))
                    default:
                        break
                    }
                }
            case .original:
                if version.isRefund { entries.append((version.purchaseDate, 0, version.refundedAmount, 1)) }
            }
            var byBucket: [(bucket: Int64, sales: Int64, refunds: Int64, sold: Int, refunded: Int)] = []
            for entry in entries where window.contains(entry.at) {
                let bucket = granularity.bucket(containing: entry.at)
                let sold = entry.sales > 0 ? 1 : 0
                if let index = byBucket.firstIndex(where: { $0.bucket == bucket }) {
                    byBucket[index].sales += entry.sales
                    byBucket[index].refunds += entry.refunds
                    byBucket[index].sold += sold
                    byBucket[index].refunded += entry.refunded
                } else {
                    byBucket.append((bucket, entry.sales, entry.refunds, sold, entry.refunded))
                }
            }
            for booking in byBucket {
                let key = RowKey(
                    bucket: booking.bucket, currency: text(version.currency) ?? "",
                    productId: byProduct ? text(version.productId) ?? "" : nil)
                var row = rows[key] ?? RevenueRow(
                    period: granularity.label(ofBucket: booking.bucket), currency: key.currency, productId: key.productId,
                    grossSales: 0, refunds: 0, net: 0, proceeds: 0, transactions: 0, refundedTransactions: 0)
                row.grossSales += booking.sales
                row.refunds += booking.refunds
                row.net += booking.sales - booking.refunds
                row.proceeds += ProceedsRate.proceeds(booking.sales - booking.refunds, rate: rate)
                row.transactions += booking.sold
                row.refundedTransactions += booking.refunded
                rows[key] = row
            }
        }

        for (_, history) in histories(in: scope) {
            let rates = smallBusiness ? [] : history.proceedsRates()
            for (index, period) in history.periods.enumerated() {
                book(period, rate: smallBusiness ? ProceedsRate.smallBusiness : rates[index])
            }
            for purchase in history.purchases {
                book(purchase, rate: smallBusiness ? ProceedsRate.smallBusiness : ProceedsRate.firstYear)
            }
        }
        let sorted = rows.sorted { $0.key < $1.key }.map(\.value)
        return RevenueReport(
            from: from, to: to, by: granularity, refunds: convention, environment: scope.environment.rawValue,
            rows: sorted)
    }
}

private struct RowKey: Hashable, Comparable {
    let bucket: Int64
    let currency: String
    let productId: String?

    static func < (a: RowKey, b: RowKey) -> Bool {
        (a.bucket, a.currency, a.productId ?? "") < (b.bucket, b.currency, b.productId ?? "")
    }
}
