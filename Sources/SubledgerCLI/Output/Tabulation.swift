/// A command's result as a person or a spreadsheet reads it: facts (`name  value` lines), then
/// tables, then notes that say what to do next.
public struct Tabulation: Sendable, Equatable {
    public var facts: [(name: String, value: Cell)]
    public var tables: [Table]
    public var notes: [String]

    public init(facts: [(name: String, value: Cell)] = [], tables: [Table] = [], notes: [String] = []) {
        self.facts = facts
        self.tables = tables
        self.notes = notes
    }

    public static func == (a: Tabulation, b: Tabulation) -> Bool {
        a.facts.map(\.name) == b.facts.map(\.name) && a.facts.map(\.value) == b.facts.map(\.value) && a.tables == b.tables && a.notes == b.notes
    }
}
