import SubledgerLog

/// A command's result as a person or a spreadsheet reads it: facts (`name  value` lines), then
/// tables, then notes that say what to do next.
struct Tabulation: Sendable {
    var facts: [(name: String, value: Cell)]
    var tables: [Table]
    var notes: [String]

    init(facts: [(name: String, value: Cell)] = [], tables: [Table] = [], notes: [String] = []) {
        self.facts = facts
        self.tables = tables
        self.notes = notes
    }
}

extension Tabulation {
    /// A report asked as of a log position (`--at-position`) says so, so that a saved table is
    /// not taken for the ledger as it stands.
    static func asOf(_ position: LogPosition?) -> [(name: String, value: Cell)] {
        position.map { [("as of log position", .text($0.description))] } ?? []
    }
}
