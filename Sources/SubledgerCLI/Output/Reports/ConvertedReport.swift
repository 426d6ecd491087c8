import SubledgerCore
import SubledgerLedger
import SubledgerProjections

/// A report with `--in CUR --rates FILE`: the API's document (`ConvertedDocument`), and as a
/// table the report's own with how it was converted and, for revenue, the total.
struct ConvertedReport<Report: CommandOutput & JSONDocument>: CommandOutput {
    var document: ConvertedDocument<Report>
    /// Revenue only: the total row as the report's table shows it (its own table after the rows).
    var totalCells: [Cell] = []

    func json() -> String { document.json.serialized() }

    var tabulation: Tabulation {
        var tabulation = document.report.tabulation
        tabulation.facts.append(("in", .text("\(document.currency), at each month's rate from \(document.rates)")))
        // A table of its own: CSV holds the first table only, one record per JSON row.
        if !totalCells.isEmpty, let rows = tabulation.tables.first {
            tabulation.tables.append(Table(title: "total", columns: rows.columns, rows: [totalCells]))
        }
        return tabulation
    }
}
