/// Tabulations for a terminal: facts as aligned `name  value` lines, each table under its
/// title with padded columns (numbers right-aligned), notes last.
struct TextTableRenderer {
    var wide: Bool

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
        let cells = table.rows.map { row in
            shown.map { index in
                let text = index < row.count ? row[index].tableText : ""
                guard !wide, let limit = table.columns[index].limit, text.count > limit else { return text }
                return text.prefix(limit - 1) + "…"
            }
        }
        let titles = shown.map { table.columns[$0].title }
        let numeric = shown.map { index in table.rows.contains { index < $0.count && $0[index].isNumeric } }
        let widths = titles.indices.map { column in max(titles[column].count, cells.map { $0[column].count }.max() ?? 0) }
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
