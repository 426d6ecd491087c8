import SubledgerProjections

/// One value of a table, typed so that each format writes it its own way: a person reads
/// `1,166.69 EUR`, `2026-03-01 10:00` and `264.9 MB`; a spreadsheet gets `1166.69`,
/// `2026-03-01T10:00:00.000Z` and `264911274`.
enum Cell: Sendable, Equatable {
    /// nil: no value (`-` in a table, an empty CSV field).
    case text(String?)
    case count(Int)
    /// An identifier or other number nobody adds up: never grouped.
    case number(Int64)
    case money(Money?)
    /// Epoch milliseconds.
    case instant(Int64?)
    case bytes(Int64)
    /// A fraction (`0.08` is 8 %).
    case rate(Double?)
    case flag(Bool?)

    static func money(_ milliunits: Int64?, _ currency: String?) -> Cell {
        .money(milliunits.map { Money(milliunits: $0, currency: currency) })
    }

    /// Numbers are right-aligned in a table.
    var isNumeric: Bool {
        switch self {
        case .count, .number, .money, .bytes, .rate: true
        case .text, .instant, .flag: false
        }
    }
}
