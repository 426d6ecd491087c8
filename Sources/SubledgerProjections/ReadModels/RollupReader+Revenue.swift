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
            // A cut month is the sum of the days it keeps, but for proceeds, which the fold
            // rounds once per transaction over those days.
            for piece in Self.monthPieces(from: from, to: to) {
                var part = try revenue(
                    from: piece.from, to: piece.to, by: piece.whole ? .month : .day, byProduct: byProduct, refunds: convention, environment: environment)
                if !piece.whole {
                    let label = UTCMonth(containing: piece.from.start).description
                    for index in part.rows.indices { part.rows[index].period = label }
                    // Merging sums the rows that now share a key: the days' into the month's.
                    part.merge(RevenueReport(from: piece.from, to: piece.to, by: .month, refunds: convention, environment: environment.rawValue, rows: []))
                    if convention == .refundDate { try addProceedsRounding(to: &part, from: piece.from, to: piece.to, byProduct: byProduct, environment: environment) }
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

    /// Adds the `proceedsRounding` cells of the transactions whose first and last bookings in
    /// `from`...`to` (one month) both lie in it to `part`, that range's rows summed.
    private func addProceedsRounding(
        to part: inout RevenueReport, from: UTCDay, to: UTCDay, byProduct: Bool, environment: AppStoreEnvironment
    ) throws(Source.Failure) {
        guard let environmentID = environmentID(environment) else { return }
        let range = RollupRange.buckets(from.number...to.number, of: .proceedsRounding, environment: environmentID, granularity: .day)
        try source.forEach(in: range) { key, values in
            guard key.bucket + Int64(key.detail) <= to.number else { return }
            let (currency, productId) = (name(key.currency), byProduct ? name(key.product) : nil)
            guard let index = part.rows.firstIndex(where: { $0.currency == currency && $0.productId == productId }) else { return }
            part.rows[index].proceeds += values[RevenueField.proceeds]
        }
    }
}
