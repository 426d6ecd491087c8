import SubledgerLog
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
    /// The log position the report was asked as of (`--at-position`), echoed so that a saved
    /// report says it is a view of the past; nil for the ledger as it stands.
    public var atPosition: LogPosition? = nil
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

extension RevenueRow {
    /// Adds `other`'s amounts and counts (same currency) to this row's.
    mutating func add(_ other: RevenueRow) {
        grossSales += other.grossSales
        refunds += other.refunds
        net += other.net
        proceeds += other.proceeds
        transactions += other.transactions
        refundedTransactions += other.refundedTransactions
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
        var rows: [RevenueRowKey: RevenueRow] = [:]

        for (_, history) in histories(in: scope) {
            history.forEachSale(smallBusiness: smallBusiness) { transaction, rate in
                let version = transaction.version
                transaction.forEachRevenueBooking(convention, by: granularity, in: window) { booking in
                    let key = RevenueRowKey(
                        bucket: booking.bucket, currency: text(version.currency) ?? "",
                        productId: byProduct ? text(version.productId) ?? "" : nil)
                    var row = rows[key]
                        ?? RevenueRow(period: granularity.label(ofBucket: booking.bucket), currency: key.currency, productId: key.productId)
                    row.add(booking, rate: rate)
                    rows[key] = row
                }
            }
        }
        let sorted = rows.sorted { $0.key < $1.key }.map(\.value)
        return RevenueReport(
            from: from, to: to, by: granularity, refunds: convention, environment: scope.environment.rawValue,
            rows: sorted)
    }
}

extension RevenueRow {
    init(period: String, currency: String, productId: String?) {
        self.init(
            period: period, currency: currency, productId: productId, grossSales: 0, refunds: 0, net: 0, proceeds: 0,
            transactions: 0, refundedTransactions: 0)
    }

    mutating func add(_ booking: RevenueBooking, rate: Int64) {
        grossSales += booking.sales
        refunds += booking.refunds
        net += booking.sales - booking.refunds
        proceeds += booking.proceeds(rate: rate)
        transactions += booking.sold
        refundedTransactions += booking.refunded
    }
}

struct RevenueRowKey: Hashable, Comparable {
    let bucket: Int64
    let currency: String
    let productId: String?

    static func < (a: RevenueRowKey, b: RevenueRowKey) -> Bool {
        (a.bucket, a.currency, a.productId ?? "") < (b.bucket, b.currency, b.productId ?? "")
    }
}
