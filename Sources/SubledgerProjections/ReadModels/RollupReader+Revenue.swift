import SubledgerEvents

extension RollupReader {
    /// `Projection.revenue` from revenue cells; nil when a month is cut by `from` or `to`.
    func revenue(
        from: UTCDay, to: UTCDay, by granularity: ReportGranularity = .month, byProduct: Bool = false,
        refunds convention: RefundConvention = .refundDate, environment: AppStoreEnvironment
    ) throws(Source.Failure) -> RevenueReport? {
        var report = RevenueReport(from: from, to: to, by: granularity, refunds: convention, environment: environment.rawValue, rows: [])
        guard from <= to else { return report }
        guard let buckets = Self.wholeBuckets(from: from, to: to, by: granularity) else { return nil }
        guard let environmentID = environmentID(environment) else { return report }
        var rows: [RevenueRowKey: RevenueRow] = [:]
        let range = RollupRange.buckets(
            buckets, of: .revenue(convention), environment: environmentID, granularity: RollupGranularity(granularity))
        try source.forEach(in: range) { key, values in
            guard values[RevenueField.bookings] > 0 else { return }
            let rowKey = RevenueRowKey(bucket: key.bucket, currency: name(key.currency), productId: byProduct ? name(key.product) : nil)
            var row = rows[rowKey]
                ?? RevenueRow(period: granularity.label(ofBucket: key.bucket), currency: rowKey.currency, productId: rowKey.productId)
            row.grossSales += values[RevenueField.grossSales]
            row.refunds += values[RevenueField.refunds]
            row.net += values[RevenueField.grossSales] - values[RevenueField.refunds]
            row.proceeds += values[RevenueField.proceeds]
            row.transactions += Int(values[RevenueField.transactions])
            row.refundedTransactions += Int(values[RevenueField.refundedTransactions])
            rows[rowKey] = row
        }
        report.rows = rows.sorted { $0.key < $1.key }.map(\.value)
        return report
    }
}
