/// One exported file: its name, what a row is, and its columns, each with its type and meaning.
/// The same list writes the header, every row and `SCHEMA.md`, so the schema cannot drift from
/// what is written.
struct ExportTable<Row>: Sendable {
    struct Column: Sendable {
        var name: String
        /// As `SCHEMA.md` names it for a warehouse: `TEXT`, `BIGINT`, `INTEGER`, `BOOLEAN`, `TIMESTAMP`.
        var type: String
        var meaning: String
        var value: @Sendable (Row) -> ExportValue

        init(_ name: String, _ type: String, _ meaning: String, _ value: @escaping @Sendable (Row) -> ExportValue) {
            self.name = name
            self.type = type
            self.meaning = meaning
            self.value = value
        }
    }

    var name: String
    /// What one row is, and which rows the file holds.
    var summary: String
    var columns: [Column]

    var schema: ExportSchema.Table {
        ExportSchema.Table(name: name, summary: summary, columns: columns.map { ($0.name, $0.type, $0.meaning) })
    }
}
