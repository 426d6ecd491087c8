import SubledgerCore

/// One field of an exported row, typed so that CSV and JSON lines each write it their way:
/// amounts and counts as integers, instants as ISO 8601 UTC with milliseconds, absent as an
/// empty CSV field or JSON null.
enum ExportValue {
    case text(String?)
    case integer(Int64?)
    /// Epoch milliseconds.
    case instant(Int64?)
    case flag(Bool?)

    static func integer(_ value: Int?) -> ExportValue { .integer(value.map(Int64.init)) }

    var csvField: String {
        switch self {
        case .text(let text): CSVRenderer.field(text ?? "")
        case .integer(let value): value.map { String($0) } ?? ""
        case .instant(let value): value.map(UTCInstant.iso8601) ?? ""
        case .flag(let value): value.map { $0 ? "true" : "false" } ?? ""
        }
    }

    var json: JSON {
        switch self {
        case .text(let text): .optional(text)
        case .integer(let value): .optional(value)
        case .instant(let value): .instant(value)
        case .flag(let value): value.map { .bool($0) } ?? .null
        }
    }
}
