import SubledgerCore
import SubledgerLedger
import SubledgerProjections

/// A report with `--in CUR --rates FILE`: the report converted into one currency (same fields
/// as without, every row in CUR), plus `"in": {"currency", "rates"}` saying how, and for revenue
/// the whole range's `total`.
struct ConvertedReport<Report: CommandOutput & Encodable & Sendable>: CommandOutput, Encodable {
    var report: Report
    var currency: String
    var rates: String
    /// Revenue only: every row summed, and that row as the report's table shows it (its own
    /// table after the rows).
    var total: RevenueRow?
    var totalCells: [Cell] = []

    private enum CodingKeys: String, CodingKey { case `in`, total }
    private struct Conversion: Encodable {
        var currency: String
        var rates: String
    }

    func encode(to encoder: any Encoder) throws {
        try report.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Conversion(currency: currency, rates: rates), forKey: .in)
        try container.encodeIfPresent(total, forKey: .total)
    }

    func json() throws -> String { try JSON.document(self) }

    var tabulation: Tabulation {
        var tabulation = report.tabulation
        tabulation.facts.append(("in", .text("\(currency), at each month's rate from \(rates)")))
        // A table of its own: CSV holds the first table only, one record per JSON row.
        if !totalCells.isEmpty, let rows = tabulation.tables.first {
            tabulation.tables.append(Table(title: "total", columns: rows.columns, rows: [totalCells]))
        }
        return tabulation
    }
}
