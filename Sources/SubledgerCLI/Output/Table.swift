/// Rows under named columns: what a table and CSV print. Columns marked `wide` appear only with
/// `--wide` (and always in CSV); `limit` cuts a long cell in a table so lines stay readable.
public struct Table: Sendable, Equatable {
    public struct Column: Sendable, Equatable {
        /// For people (table headers).
        public var title: String
        /// For programs (CSV headers): the JSON field name.
        public var key: String
        public var wide: Bool
        public var limit: Int?

        public init(_ title: String, key: String, wide: Bool = false, limit: Int? = nil) {
            self.title = title
            self.key = key
            self.wide = wide
            self.limit = limit
        }
    }

    public var title: String?
    public var columns: [Column]
    public var rows: [[Cell]]

    public init(title: String? = nil, columns: [Column], rows: [[Cell]]) {
        self.title = title
        self.columns = columns
        self.rows = rows
    }
}
