/// A JSON value with object members in the order they were given, so output reads like the
/// contract and is byte-stable.
public enum JSON: Sendable {
    case null
    case bool(Bool)
    case integer(Int64)
    case unsigned(UInt64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func int(_ value: some BinaryInteger) -> JSON { .integer(Int64(value)) }
    public static func optional(_ value: String?) -> JSON { value.map { .string($0) } ?? .null }
    public static func optional(_ value: Int64?) -> JSON { value.map { .integer($0) } ?? .null }
    /// An instant (epoch milliseconds) as ISO 8601 UTC text, or `null`.
    public static func instant(_ instant: Int64?) -> JSON { optional(instant.map(UTCInstant.iso8601)) }

    /// Compact JSON text.
    public func serialized() -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    public var bytes: [UInt8] {
        var writer = JSONWriter()
        writer.value(self)
        return writer.bytes
    }

    /// Appends the compact JSON text to `bytes`, as a value on its own (no comma before it).
    public func write(into bytes: inout [UInt8]) {
        var writer = JSONWriter()
        swap(&writer.bytes, &bytes)
        writer.value(self)
        swap(&writer.bytes, &bytes)
    }
}
