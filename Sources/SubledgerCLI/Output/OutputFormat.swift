/// How a result is printed: `--format table|csv|json` (`--json` is `--format json`). `jsonl`
/// prints the JSON document on one line, as streaming commands print each of their rows.
enum OutputFormat: String, Sendable, CaseIterable {
    case table, csv, json, jsonl
}
