import SubledgerCore
import SubledgerLedger
import SubledgerProjections

extension MRRReport: CommandOutput {
    func json() throws -> String { try JSON.document(self) }

    var tabulation: Tabulation {
        let columns: [Table.Column] = [
            .init("currency", key: "currency", wide: true), .init("MRR", key: "mrr"), .init("ARR", key: "arr"),
            .init("active", key: "activeSubscriptions"), .init("trials", key: "activeTrials"),
            .init("commitments", key: "activeCommitments"), .init("committed remaining", key: "committedRevenueRemaining"),
        ]
        let rows: [[Cell]] = rows.map { row in
            [.text(row.currency), .money(row.mrr, row.currency), .money(row.arr, row.currency), .count(row.activeSubscriptions),
             .count(row.activeTrials), .count(row.activeCommitments), .money(row.committedRevenueRemaining, row.currency)]
        }
        return Tabulation(facts: [("MRR at", .instant(at)), ("environment", .text(environment))] + Tabulation.asOf(atPosition), tables: [Table(columns: columns, rows: rows)])
    }
}
