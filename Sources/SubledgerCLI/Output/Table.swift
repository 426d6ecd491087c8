/// Rows under named columns: what a table and CSV print. Columns marked `wide` appear only with
/// `--wide` (and always in CSV); `limit` cuts a long cell in a table so lines stay readable.
struct Table: Sendable, Equatable {
    struct Column: Sendable, Equatable {
        /// For people (table headers).
        var title: String
        /// For programs (CSV headers): the JSON field name.
        var key: String
        var wide: Bool
        var limit: Int?
        var cut: Cut

        /// Where a cell longer than `limit` loses characters: prose at its end; identifiers and
        /// paths in the middle, since `pro.monthly` and `pro.monthly.intro` differ at their ends.
        enum Cut: Sendable {
            case end
            case middle
        }

        init(_ title: String, key: String, wide: Bool = false, limit: Int? = nil, cut: Cut = .end) {
            self.title = title
            self.key = key
            self.wide = wide
            self.limit = limit
            self.cut = cut
        }
    }

    var title: String?
    var columns: [Column]
    var rows: [[Cell]]

    init(title: String? = nil, columns: [Column], rows: [[Cell]]) {
        self.title = title
        self.columns = columns
        self.rows = rows
    }

    /// This table without the column `key` and its cells.
    func removing(_ key: String) -> Table {
        guard let index = columns.firstIndex(where: { $0.key == key }) else { return self }
        var table = self
        table.columns.remove(at: index)
        table.rows = rows.map { row in var row = row; if index < row.count { row.remove(at: index) }; return row }
        return table
    }
}
