/// A record's place in the log: the global byte offset of its frame. Stable, totally ordered,
/// printed and parsed as a decimal number.
public struct LogPosition: RawRepresentable, Comparable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: UInt64

    public init(rawValue: UInt64) { self.rawValue = rawValue }

    public init?(_ text: some StringProtocol) {
        guard let value = UInt64(text) else { return nil }
        rawValue = value
    }

    /// Before every record: reading from here reads the whole log.
    public static let start = LogPosition(rawValue: 0)
    /// Where a log's first record goes, past its first segment's header: a log that ends here
    /// holds no record.
    public static let firstRecord = LogPosition(rawValue: UInt64(LogFormat.segmentHeaderSize))

    public var description: String { String(rawValue) }

    public static func < (a: LogPosition, b: LogPosition) -> Bool { a.rawValue < b.rawValue }
}
