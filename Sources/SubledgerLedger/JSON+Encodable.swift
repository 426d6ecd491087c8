import FoundationEssentials
import SubledgerCore

extension JSON {
    /// The contract's document for a report value (its `Encodable` conformance): keys sorted,
    /// so the same state always gives the same bytes.
    public static func document(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}
