import SubledgerCore
import SubledgerLedger
import SubledgerProjections

extension RevenueReport: CommandOutput {
    func json() throws -> String { try JSON.document(self) }

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
            tables: [Table(columns: columns, rows: rows)])
    }
}
