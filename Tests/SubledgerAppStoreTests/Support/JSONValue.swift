import Foundation

/// A JSON value in a form both Foundation's parse and our typed payloads can be turned into, so
/// the two can be compared member by member.
indirect enum JSONValue: Equatable, CustomStringConvertible {
    case string(String)
    case integer(Int64)
    case fraction(Double)
    case bool(Bool)
    case array([JSONValue])
    case object([String: JSONValue])
    case null

    /// Converts what `JSONSerialization` returned.
    init(foundation value: Any) {
        switch value {
        case let string as String:
            self = .string(string)
        case let number as NSNumber:
            let kind = String(cString: number.objCType)
            if kind == "c" {
                self = .bool(number.boolValue)
            } else if kind == "d" || kind == "f" {
                self = .fraction(number.doubleValue)
            } else {
                self = .integer(number.int64Value)
            }
        case let array as [Any]:
            self = .array(array.map(JSONValue.init(foundation:)))
        case let object as [String: Any]:
            self = .object(object.mapValues(JSONValue.init(foundation:)))
        default:
            self = .null
        }
    }

    /// Parses JSON text with Foundation.
    init(parsing bytes: [UInt8]) throws {
        self.init(foundation: try JSONSerialization.jsonObject(with: Data(bytes), options: .fragmentsAllowed))
    }

    var description: String {
        switch self {
        case .string(let value): return "\"\(value)\""
        case .integer(let value): return String(value)
        case .fraction(let value): return String(value)
        case .bool(let value): return String(value)
        case .array(let values): return "[" + values.map(\.description).joined(separator: ",") + "]"
        case .object(let members):
            return "{" + members.sorted { $0.key < $1.key }.map { "\"\($0.key)\":\($0.value)" }.joined(separator: ",")
                + "}"
        case .null: return "null"
        }
    }
}
