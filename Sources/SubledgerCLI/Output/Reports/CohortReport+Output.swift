import SubledgerCore
import SubledgerLedger
import SubledgerProjections

extension CohortReport: CommandOutput {
    func json() -> String { json.serialized() }

    /// `+n`: retained at the start of month cohort + n, which is `retained[n - 1]`.
    var tabulation: Tabulation {
        let months = rows.map(\.retained.count).max() ?? 0
        let columns = [Table.Column("cohort", key: "cohort"), .init("size", key: "size")] + (0..<months).map { Table.Column("+\($0 + 1)", key: "retained.\($0)") }
        let rows: [[Cell]] = rows.map { row in
            [.text(row.cohort), .count(row.size)] + (0..<months).map { $0 < row.retained.count ? .count(row.retained[$0]) : .text(nil) }
        }
        // Only cohorts with members whose month had begun are rows: a report from 2010 on a ledger
        // that begins in 2016 starts at 2016 without a word otherwise.
        let lastBegun = UTCMonth(containing: at - 1)
        var notes: [String] = []
        if lastBegun < from {
            notes.append("no cohort from \(from) had begun at \(UTCInstant.iso8601(at))")
        } else if self.rows.isEmpty {
            notes.append("no subscription's first paid period started from \(from) to \(min(to, lastBegun))")
        } else if self.rows[0].cohort > from.description {
            notes.append("the rows start at \(self.rows[0].cohort): no subscription's first paid period started before it")
        }
        if from <= lastBegun, lastBegun < to {
            notes.append("the rows end by \(lastBegun): later cohorts had not begun at \(UTCInstant.iso8601(at))")
        }
        return Tabulation(
            facts: [("cohorts", .text("\(from) to \(to)")), ("environment", .text(environment)), ("at", .text(UTCInstant.iso8601(at)))] + Tabulation.asOf(atPosition),
            tables: [Table(columns: columns, rows: rows)], notes: notes)
    }
}
