/// `SCHEMA.md`: every exported file and every column, with its type and meaning.
struct ExportSchema {
    struct Table {
        var name: String
        var summary: String
        var columns: [(name: String, type: String, meaning: String)]
    }

    var tables: [Table]
    var format: ExportFormat
    var window: String

    var markdown: String {
        var lines = [
            "# Subledger export",
            "",
            "Written by `subledger export` for \(window). Files are \(format == .csv ? "CSV (RFC 4180: a header row, CRLF line ends, fields quoted when they hold a comma, a quote or a line break)" : "JSON lines (one object per line, members in the column order below)").",
            "Amounts are integer milliunits of the row's currency (`10990` is 10.99). Instants (`TIMESTAMP`) are ISO 8601 UTC with milliseconds (`2026-03-01T00:00:00.000Z`). An absent value is \(format == .csv ? "an empty field" : "null").",
        ]
        for table in tables {
            lines += ["", "## \(table.name).\(format.fileExtension)", "", table.summary, "", "| column | type | meaning |", "|---|---|---|"]
            lines += table.columns.map { "| `\($0.name)` | \($0.type) | \($0.meaning) |" }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// `export --format csv|jsonl`.
enum ExportFormat: String, CaseIterable {
    case csv, jsonl

    var fileExtension: String { rawValue }
}
