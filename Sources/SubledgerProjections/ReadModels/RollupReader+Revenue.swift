import SubledgerEvents

extension RollupReader {
    /// `Projection.revenue` from revenue cells.
    func revenue(
        from: UTCDay, to: UTCDay, by granularity: ReportGranularity = .month, byProduct: Bool = false,
        refunds convention: RefundConvention = .refundDate, environment: AppStoreEnvironment
    ) throws(Source.Failure) -> RevenueReport {
        var report = RevenueReport(from: from, to: to, by: granularity, refunds: convention, environment: environment.rawValue, rows: [])
        guard from <= to else { return report }
        guard let buckets = Self.wholeBuckets(from: from, to: to, by: granularity) else {
            // A cut month is the sum of the days it keeps: every figure is a sum by day.
            for piece in Self.monthPieces(from: from, to: to) {
                var part = try revenue(
                    from: piece.from, to: piece.to, by: piece.whole ? .month : .day, byProduct: byProduct, refunds: convention, environment: environment)
                if !piece.whole {
                    for index in part.rows.indices { part.rows[index].period = UTCMonth(containing: piece.from.start).description }
                }
                report.merge(part)
            }
            return report
        }
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
