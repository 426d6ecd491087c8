import SubledgerCore
import SubledgerLedger
import SubledgerProjections

extension MRRReport: CommandOutput {
    func json() -> String { json.serialized() }

    var tabulation: Tabulation {
        Tabulation(facts: [("MRR at", .instant(at)), ("environment", .text(environment))] + Tabulation.asOf(atPosition), tables: [Table(columns: Self.columns, rows: rows.map(Self.cells))])
    }

    static let columns: [Table.Column] = [
        .init("currency", key: "currency", wide: true), .init("MRR", key: "mrr"), .init("ARR", key: "arr"),
        .init("active", key: "activeSubscriptions"), .init("trials", key: "activeTrials"),
        .init("commitments", key: "activeCommitments"), .init("committed remaining", key: "committedRevenueRemaining"),
    ]

    static func cells(_ row: MRRRow) -> [Cell] {
        [.text(row.currency), .money(row.mrr, row.currency), .money(row.arr, row.currency), .count(row.activeSubscriptions),
         .count(row.activeTrials), .count(row.activeCommitments), .money(row.committedRevenueRemaining, row.currency)]
    }
}

/// A row per point and currency, the point's instant first: CSV holds one table. A point with
/// nothing active is one row of zeros without a currency, where leaving it out made a month of
/// no MRR look like one not asked for.
extension MRRSeriesReport: CommandOutput {
    func json() -> String { json.serialized() }

    var tabulation: Tabulation {
        let columns = [Table.Column("at", key: "at")] + MRRReport.columns
        let nothing = MRRRow(currency: "")
        let rows = points.flatMap { point in (point.rows.isEmpty ? [nothing] : point.rows).map { [Cell.instant(point.at)] + MRRReport.cells($0) } }
        let facts: [(String, Cell)] = [
            ("MRR at the end of each", .text(by.rawValue)), ("from", .text(from.description)), ("to", .text(to.description)),
            ("environment", .text(environment)),
        ]
        return Tabulation(facts: facts + Tabulation.asOf(atPosition), tables: [Table(columns: columns, rows: rows)])
    }
}
