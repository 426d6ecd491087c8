/// A command's own `--help`: what it does, its usage, every option, one example. The options
/// listed are also the ones the command accepts.
struct CommandHelp: Sendable {
    struct Option: Sendable {
        var name: String
        /// What the value is (`DAY`); nil for a switch.
        var value: String?
        var summary: String
        /// Whether it may be given more than once (each value counts); any other option given
        /// twice is refused rather than the last one silently winning.
        var repeatable = false

        init(_ name: String, _ value: String, _ summary: String, repeatable: Bool = false) {
            self.name = name
            self.value = value
            self.summary = summary
            self.repeatable = repeatable
        }

        /// A switch.
        init(_ name: String, _ summary: String) {
            self.name = name
            self.summary = summary
        }
    }

    /// `ingest`, `report revenue`.
    var name: String
    var summary: String
    /// After `subledger`: `ingest [FILE|-]...`.
    var usage: String
    /// How many words may follow the command's name (`customer ID`: 1), nil for any number
    /// (`ingest FILE...`). A word too many is refused: `--as-of 2026-03-01 10:00` must not
    /// quietly mean midnight.
    var operands: Int? = 0
    /// What the operand names, where a user may give several by mistake (`customer A B`: "ID"),
    /// so that a word too many is answered as one too many of them, not as a stray word.
    var operandName: String? = nil
    var options: [Option] = []
    /// Whether the result can be printed as a table, CSV or JSON (`--format`, `--json`).
    var formats = true
    /// Whether `--format` names the files the command writes (`export`), not how its result is
    /// printed, so that `--json` may be given with it for the result (a table otherwise).
    var formatNamesFiles = false
    /// Whether the result can be printed as a table, so `--wide` applies.
    var printsTable: Bool { formats || formatNamesFiles }
    /// Whether some table columns are shown only with `--wide`.
    var wide = false
    /// What more a user needs to know: exit codes, what CSV holds.
    var notes: [String] = []
    var example: String

    var text: String {
        var lines = ["subledger \(name) — \(summary)", "", "usage: subledger [--data DIR] \(usage)"]
        var all = options
        if wide {
            all.append(Option("--wide", "show every column, each cell whole (default: what a person scans, long cells cut with …)"))
        } else if printsTable {
            all.append(Option("--wide", "show long cells whole (default: cut with … to fit)"))
        }
        if formats {
            all.append(Option("--format", "FORMAT", "table (default), csv, json or jsonl"))
            all.append(Option("--json", "the contract's JSON document (same as --format json)"))
        }
        all.append(Option("--data", "DIR", "the data directory (default: $SUBLEDGER_DATA, else ./subledger-data)"))
        let labels = all.map { $0.name + ($0.value.map { " " + $0 } ?? "") }
        let width = labels.map(\.count).max() ?? 0
        lines += ["", "options:"]
        lines += zip(labels, all).map { "  " + $0 + String(repeating: " ", count: width - $0.count) + "  " + $1.summary }
        if !notes.isEmpty { lines += [""] + notes }
        lines += ["", "example:", "  " + example]
        return lines.joined(separator: "\n") + "\n"
    }
}
