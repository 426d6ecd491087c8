/// RFC 4180 CSV for spreadsheets: a header row, then one record per row, CRLF line ends,
/// fields quoted when they hold a comma, a quote or a line break. It is the tabulation's first
/// table with every column (`--wide` ones too) under the JSON field names, or its facts as
/// `field,value` records when it has no table.
struct CSVRenderer {
    func render(_ tabulation: Tabulation) -> String {
        let header: [String]
        let records: [[String]]
        if let table = tabulation.tables.first {
            header = table.columns.map(\.key)
            records = table.rows.map { row in row.map(\.csvText) }
        } else {
            header = ["field", "value"]
            records = tabulation.facts.map { [$0.name, $0.value.csvText] }
        }
        return ([header] + records).map { $0.map(Self.field).joined(separator: ",") + "\r\n" }.joined()
    }

    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + String(text.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] }) + "\""
    }
}
