/// How a result is printed: `--format table|csv|json|jsonl` (`--json` is `--format json`).
/// `jsonl` is one JSON document per line: a command that lists records (`events`) streams one
/// record a line; any other prints its one document on one line, as `json` does.
enum OutputFormat: String, Sendable, CaseIterable {
    case table, csv, json, jsonl
}
