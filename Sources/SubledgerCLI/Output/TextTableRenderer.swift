#if canImport(Glibc)
import Glibc
#endif

/// Tabulations for a terminal: facts as aligned `name  value` lines, each table under its
/// title with padded columns (numbers right-aligned), notes last.
struct TextTableRenderer {
    var wide: Bool
    /// The terminal's width: text columns that may be cut are cut further so a line fits it.
    /// Nil (output to a file or a pipe) keeps each column's own limit.
    var width: Int? = nil

    /// The width of the terminal stdout writes to, nil when stdout is not one.
    static var terminalWidth: Int? {
        var size = winsize()
        guard isatty(1) == 1, ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    func render(_ tabulation: Tabulation) -> String {
        var blocks: [String] = []
        if !tabulation.facts.isEmpty {
            let width = tabulation.facts.map(\.name.count).max() ?? 0
            blocks.append(tabulation.facts.map { Self.pad($0.name, width) + "  " + $0.value.tableText }.joined(separator: "\n"))
        }
        for table in tabulation.tables { blocks.append(render(table)) }
        if !tabulation.notes.isEmpty { blocks.append(tabulation.notes.joined(separator: "\n")) }
        return blocks.map { $0 + "\n" }.joined(separator: "\n")
    }

    func render(_ table: Table) -> String {
        let shown = table.columns.indices.filter { wide || !table.columns[$0].wide }
        var lines: [String] = []
        if let title = table.title { lines.append(title + ":") }
        guard !table.rows.isEmpty else { return (lines + ["  (none)"]).joined(separator: "\n") }
        let texts = table.rows.map { row in shown.map { index in index < row.count ? row[index].tableText : "" } }
        let titles = shown.map { table.columns[$0].title }
        var limits = shown.map { wide ? nil : table.columns[$0].limit }
        func widths() -> [Int] {
            titles.indices.map { column in
                max(titles[column].count, texts.map { min($0[column].count, limits[column] ?? .max) }.max() ?? 0)
            }
        }
        if !wide, let width {
            // The widest column that may be cut gives way first, never below its title or 12.
            var current = widths()
            while current.reduce(2 * (current.count - 1), +) > width {
                let excess = current.reduce(2 * (current.count - 1), +) - width
                let floors = titles.map { max($0.count, 12) }
                guard let column = current.indices.filter({ limits[$0] != nil && current[$0] > floors[$0] }).max(by: { current[$0] < current[$1] })
                else { break }
                limits[column] = max(floors[column], current[column] - excess)
                current = widths()
            }
        }
        let cells = texts.map { row in
            row.indices.map { column in
                guard let limit = limits[column], row[column].count > limit else { return row[column] }
                switch table.columns[shown[column]].cut {
                case .end:
                    return row[column].prefix(limit - 1) + "…"
                case .middle:
                    let tail = (limit - 1) / 2
                    return row[column].prefix(limit - 1 - tail) + "…" + row[column].suffix(tail)
                }
            }
        }
        let numeric = shown.map { index in table.rows.contains { index < $0.count && $0[index].isNumeric } }
        let widths = widths()
        func line(_ texts: [String]) -> String {
            var text = texts.indices.map { column in
                numeric[column] ? Self.pad(texts[column], widths[column], left: true) : Self.pad(texts[column], widths[column])
            }.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        lines.append(line(titles))
        lines += cells.map(line)
        return lines.joined(separator: "\n")
    }

    static func pad(_ text: String, _ width: Int, left: Bool = false) -> String {
        let padding = String(repeating: " ", count: max(0, width - text.count))
        return left ? padding + text : text + padding
    }
}
