import SubledgerEvents
import SubledgerLog

/// One event to fold, with where the log put it and when the ledger recorded it. The ingestion
/// layer builds these after the event is durable; log replay builds them from event records.
public struct ProjectionInput: Sendable {
    /// The position of the event's record in the log.
    public var position: LogPosition
    /// When the ledger recorded the event, in epoch milliseconds. Kept for `history`; state
    /// never depends on it (the contract orders facts by their signed times).
    public var recordedAtMillis: Int64
    public var event: Event

    public init(position: LogPosition, recordedAtMillis: Int64, event: Event) {
        self.position = position
        self.recordedAtMillis = recordedAtMillis
        self.event = event
    }
}

/// The log record that carries an event, as projections replay it.
///
/// Layout: kind 1, version 1; payload = recordedAt (epoch milliseconds, Int64, 8 bytes
/// little-endian) followed by the event's `EventCodec` bytes. The record's position is the
/// event's position. Records of other kinds (e.g. the verbatim signed messages) are skipped by
/// projections.
public enum EventRecord {
    public static let kind: UInt8 = 1
    public static let version: UInt8 = 1
    public static let headerSize = 8

    /// The payload for `event` recorded at `recordedAtMillis`.
    public static func payload(for event: Event, recordedAtMillis: Int64) -> [UInt8] {
        var payload: [UInt8] = []
        payload.reserveCapacity(256)
        withUnsafeBytes(of: recordedAtMillis.littleEndian) { payload.append(contentsOf: $0) }
        EventCodec.encode(event, into: &payload)
        return payload
    }

    /// The log record for `event` recorded at `recordedAtMillis`.
    public static func logRecord(for event: Event, recordedAtMillis: Int64) -> LogRecord {
        LogRecord(kind: kind, version: version, payload: payload(for: event, recordedAtMillis: recordedAtMillis))
    }

    /// Splits a payload into its recorded-at time and the event bytes; nil when too short.
    public static func split(_ payload: UnsafeRawBufferPointer) -> (recordedAt: Int64, event: UnsafeRawBufferPointer)? {
        guard payload.count > headerSize else { return nil }
        let recordedAt = Int64(littleEndian: payload.loadUnaligned(as: Int64.self))
        return (recordedAt, UnsafeRawBufferPointer(rebasing: payload[headerSize...]))
    }
}
