import SubledgerCore
import SubledgerLedger
import SubledgerProjections

extension RevenueReport: CommandOutput {
    func json() -> String { json.serialized() }

    var tabulation: Tabulation {
        let byProduct = rows.contains { $0.productId != nil }
        var columns: [Table.Column] = [.init("period", key: "period"), .init("currency", key: "currency", wide: true)]
        if byProduct { columns.append(.init("product", key: "productId", limit: 28, cut: .middle)) }
        columns += [
            .init("gross sales", key: "grossSales"), .init("refunds", key: "refunds"), .init("net", key: "net"),
            .init("proceeds", key: "proceeds"), .init("transactions", key: "transactions"), .init("refunded", key: "refundedTransactions"),
        ]
        let rows: [[Cell]] = rows.map { row in
            var cells: [Cell] = [.text(row.period), .text(row.currency)]
            if byProduct { cells.append(.text(row.productId)) }
            return cells + [
                .money(row.grossSales, row.currency), .money(row.refunds, row.currency), .money(row.net, row.currency),
                .money(row.proceeds, row.currency), .count(row.transactions), .count(row.refundedTransactions),
            ]
        }
        return Tabulation(
            facts: [("revenue", .text("\(from) to \(to) by \(by.rawValue)")), ("refunds", .text("by \(refunds.rawValue)")), ("environment", .text(environment))] + Tabulation.asOf(atPosition),
            tables: [Table(columns: columns, rows: rows)], notes: roundsAmounts ? [Self.roundingNote] : [])
    }

    /// Whether a cell shows an amount rounded to its currency's minor unit (a prorated refund or
    /// a share of proceeds has a third decimal): then shown cells need not add up.
    var roundsAmounts: Bool {
        rows.contains { row in
            let step = Int64([1, 10, 100, 1000][max(0, 3 - Money(milliunits: 0, currency: row.currency).decimals)])
            return [row.grossSales, row.refunds, row.net, row.proceeds].contains { $0 % step != 0 }
        }
    }

    static let roundingNote = """
        amounts are rounded to the currency's minor unit cell by cell, so shown ones may
        not add up by a unit; a total is the exact sum rounded once, and CSV and JSON are
        exact
        """
}
