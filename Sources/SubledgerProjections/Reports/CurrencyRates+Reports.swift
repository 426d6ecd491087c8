import SubledgerCore

extension RevenueReport {
    /// The report in `target`: each row's gross sales, refunds and proceeds converted at the rate
    /// of its period's month (see `CurrencyRates` for the rounding), net as converted gross minus
    /// converted refunds, then the rows of one period (and product) summed. Counts are summed.
    public func converted(into target: String, rates: CurrencyRates) throws(QueryError) -> RevenueReport {
        var sums: [String: RevenueRow] = [:]
        var order: [String] = []
        for row in rows {
            let month = String(row.period.prefix(7))
            func convert(_ amount: Int64) throws(QueryError) -> Int64 {
                try rates.convert(amount, from: row.currency, in: month, into: target)
            }
            let key = row.period + "\u{0}" + (row.productId ?? "")
            var sum = sums[key] ?? RevenueRow(
                period: row.period, currency: target, productId: row.productId,
                grossSales: 0, refunds: 0, net: 0, proceeds: 0, transactions: 0, refundedTransactions: 0)
            if sums[key] == nil { order.append(key) }
            var converted = row
            converted.grossSales = try convert(row.grossSales)
            converted.refunds = try convert(row.refunds)
            // Net stays gross minus refunds, in the converted figures too.
            let (net, overflow) = converted.grossSales.subtractingReportingOverflow(converted.refunds)
            guard !overflow else { throw CurrencyRates.beyondRange("the \(row.period) net in \(target)") }
            converted.net = net
            converted.proceeds = try convert(row.proceeds)
            try sum.add(converted, naming: "the \(row.period) sum in \(target)")
            sums[key] = sum
        }
        var report = self
        report.rows = order.map { sums[$0]! }
        // The range's total, which the CLI and the routes add, must fit too.
        var total = RevenueRow(period: "total", currency: target, productId: nil, grossSales: 0, refunds: 0, net: 0, proceeds: 0, transactions: 0, refundedTransactions: 0)
        for row in report.rows { try total.add(row, naming: "the total in \(target)") }
        return report
    }

    /// Every row summed into one, `period` "total"; meaningful when the rows share a currency.
    public var total: RevenueRow {
        rows.reduce(into: RevenueRow(
            period: "total", currency: rows.first?.currency ?? "", productId: nil,
            grossSales: 0, refunds: 0, net: 0, proceeds: 0, transactions: 0, refundedTransactions: 0)
        ) { total, row in total.add(row) }
    }
}

extension RevenueRow {
    /// `add(other)`, refused beyond 64 bits: converted amounts can be far larger than any the
    /// payload bounds let in. `what` names the sum in the error.
    fileprivate mutating func add(_ other: RevenueRow, naming what: @autoclosure () -> String) throws(QueryError) {
        let sums = [grossSales.addingReportingOverflow(other.grossSales), refunds.addingReportingOverflow(other.refunds),
                    net.addingReportingOverflow(other.net), proceeds.addingReportingOverflow(other.proceeds)]
        guard !sums.contains(where: \.overflow) else { throw CurrencyRates.beyondRange(what()) }
        add(other)
    }
}

extension MRRReport {
    /// The month whose rate converts the report: the one holding the millisecond before `at`.
    /// A month's first instant is the end of the month before (`--at 2026-04-01` is March's
    /// close, as the help says), so it takes that month's rate: a March close does not wait for
    /// April's rates, which Apple publishes in May, and agrees with the dashboard's month end
    /// (its last millisecond).
    var rateMonth: UTCMonth { UTCMonth(containing: at == .min ? at : at - 1) }

    /// The report as one row in `target`: each currency's MRR, ARR and committed revenue
    /// converted at the rate of the month that `at` ends or is in (`rateMonth`), then summed
    /// with the counts.
    public func converted(into target: String, rates: CurrencyRates) throws(QueryError) -> MRRReport {
        let month = rateMonth.description
        var sum = MRRRow(currency: target, mrr: 0, arr: 0, activeSubscriptions: 0, activeTrials: 0, activeCommitments: 0, committedRevenueRemaining: 0)
        func add(_ amount: Int64, to total: inout Int64) throws(QueryError) {
            let (added, overflow) = total.addingReportingOverflow(amount)
            guard !overflow else { throw CurrencyRates.beyondRange("the sum in \(target)") }
            total = added
        }
        for row in rows {
            try add(try rates.convert(row.mrr, from: row.currency, in: month, into: target), to: &sum.mrr)
            try add(try rates.convert(row.arr, from: row.currency, in: month, into: target), to: &sum.arr)
            try add(try rates.convert(row.committedRevenueRemaining, from: row.currency, in: month, into: target), to: &sum.committedRevenueRemaining)
            sum.activeSubscriptions += row.activeSubscriptions
            sum.activeTrials += row.activeTrials
            sum.activeCommitments += row.activeCommitments
        }
        var report = self
        report.rows = rows.isEmpty ? [] : [sum]
        return report
    }
}

/// A report in one currency as the CLI and the API answer it (`--in CUR`, `?in=CUR`): the
/// report's own members, every row in that currency, `"in": {"currency", "rates"}` saying how,
/// and for revenue the range's `total`.
public struct ConvertedDocument<Report: JSONDocument>: JSONDocument {
    public var report: Report
    public var currency: String
    /// Where the rates came from (`CurrencyRates.source`).
    public var rates: String
    public var total: RevenueRow?

    public init(report: Report, currency: String, rates: String, total: RevenueRow? = nil) {
        self.report = report
        self.currency = currency
        self.rates = rates
        self.total = total
        // With no rows the sum has taken no currency from them.
        self.total?.currency = currency
    }

    /// The report's members, `in` and, for revenue, `total`, sorted by name as the report's own.
    public var json: JSON {
        .sortedObject(report.json.members + [("in", .sortedObject([("currency", .string(currency)), ("rates", .string(rates))]))]
            + (total.map { [("total", $0.json)] } ?? []))
    }
}
