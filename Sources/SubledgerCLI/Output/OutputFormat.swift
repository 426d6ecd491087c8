/// How a result is printed: `--format table|csv|json` (`--json` is `--format json`).
enum OutputFormat: String, Sendable, CaseIterable {
    case table, csv, json
}
