/// What the event index can look events up by. Each dimension maps an event to at most one
/// 32-bit value: a type code, an interned string id, or an hour since 1970 (so a time range
/// reads whole hours and checks the two hours at its edges event by event).
public enum EventDimension: UInt8, Sendable, CaseIterable {
    case type = 1
    case notificationType = 2
    case product = 3
    case environment = 4
    case effectiveHour = 5
    case recordedHour = 6

    static let millisecondsPerHour: Int64 = 3_600_000

    /// The hour bucket of an instant; instants before 1970 share bucket 0 and the far future the last.
    static func hour(_ instant: Int64) -> UInt32 {
        let hour = instant >= 0 ? instant / millisecondsPerHour : -1
        return UInt32(clamping: max(0, hour))
    }
}

/// One posting list's identity: a dimension and its value, packed so an open-addressing index
/// can hold it.
struct PostingKey: Hashable, Sendable, Comparable {
    var dimension: EventDimension
    var value: UInt32

    var packed: UInt128 { UInt128(dimension.rawValue) << 32 | UInt128(value) }

    init(_ dimension: EventDimension, _ value: UInt32) {
        self.dimension = dimension
        self.value = value
    }

    init?(packed: UInt128) {
        guard let dimension = EventDimension(rawValue: UInt8(truncatingIfNeeded: packed >> 32)) else { return nil }
        self.init(dimension, UInt32(truncatingIfNeeded: packed))
    }

    /// The byte order of the stored keys: dimension, then value (big-endian).
    static func < (a: PostingKey, b: PostingKey) -> Bool {
        (a.dimension.rawValue, a.value) < (b.dimension.rawValue, b.value)
    }
}
