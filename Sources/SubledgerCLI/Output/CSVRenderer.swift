import SubledgerCore

/// RFC 4180 CSV for spreadsheets: a header row, then one record per row, CRLF line ends,
/// fields quoted when they hold a comma, a quote or a line break. It is the tabulation's first
/// table with every column (`--wide` ones too) under the JSON field names, or when it has no
/// table `field,value` records: the JSON document's members, nested ones by their dotted path
/// (`projections.0.lag`), or else its facts.
struct CSVRenderer {
    func render(_ tabulation: Tabulation, document: JSON? = nil) -> String {
        let header: [String]
        var records: [[String]] = []
        if let table = tabulation.tables.first {
            header = table.columns.map(\.key)
            records = table.rows.map { row in row.map(\.csvText) }
        } else if let document {
            header = ["field", "value"]
            Self.flatten(document, path: "", into: &records)
        } else {
            header = ["field", "value"]
            records = tabulation.facts.map { [$0.name, $0.value.csvText] }
        }
        return ([header] + records).map { $0.map(Self.field).joined(separator: ",") + "\r\n" }.joined()
    }

    /// A record per scalar in `value`, named by its path; a string as it is, null and an empty
    /// array or object empty, any other scalar as its JSON text.
    private static func flatten(_ value: JSON, path: String, into records: inout [[String]]) {
        func child(_ name: String) -> String { path.isEmpty ? name : path + "." + name }
        switch value {
        // Empty, a record of its own with no value: a field left out would read as one never asked.
        case .object(let members) where members.isEmpty: records.append([path, ""])
        case .array(let elements) where elements.isEmpty: records.append([path, ""])
        case .object(let members): for (name, member) in members { flatten(member, path: child(name), into: &records) }
        case .array(let elements): for (index, element) in elements.enumerated() { flatten(element, path: child(String(index)), into: &records) }
        case .string(let text): records.append([path, text])
        case .null: records.append([path, ""])
        default: records.append([path, value.serialized()])
        }
    }

    static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + String(text.flatMap { $0 == "\"" ? ["\"", "\""] : [$0] }) + "\""
    }
}
