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
        return Tabulation(facts: [("cohorts", .text("\(from) to \(to)")), ("environment", .text(environment))] + Tabulation.asOf(atPosition), tables: [Table(columns: columns, rows: rows)])
    }
}
