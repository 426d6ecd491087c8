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
