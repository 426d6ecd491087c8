import SubledgerCore
import SubledgerLedger
import SubledgerProjections

extension CohortReport: CommandOutput {
    func json() throws -> String { try JSON.document(self) }

    /// `+n`: retained at the start of month cohort + n, which is `retained[n - 1]`.
    var tabulation: Tabulation {
        let months = rows.map(\.retained.count).max() ?? 0
        let columns = [Table.Column("cohort", key: "cohort"), .init("size", key: "size")] + (0..<months).map { Table.Column("+\($0 + 1)", key: "retained.\($0)") }
        let rows: [[Cell]] = rows.map { row in
            [.text(row.cohort), .count(row.size)] + (0..<months).map { $0 < row.retained.count ? .count(row.retained[$0]) : .text(nil) }
        }
        // Only cohorts with members are rows: a report from 2010 on a ledger that begins in 2016
        // starts at 2016 without a word otherwise.
        let notes = self.rows.isEmpty ? ["no subscription's first paid period started from \(from) to \(to)"]
            : self.rows[0].cohort > from.description ? ["the rows start at \(self.rows[0].cohort): no subscription's first paid period started before it"] : []
        return Tabulation(
            facts: [("cohorts", .text("\(from) to \(to)")), ("environment", .text(environment))] + Tabulation.asOf(atPosition),
            tables: [Table(columns: columns, rows: rows)], notes: notes)
    }
}
