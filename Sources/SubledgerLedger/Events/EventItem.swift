import SubledgerEvents
import SubledgerLog

/// One event of `events` and of the event feed: the whole event read back from the log, where
/// it was recorded, and when asked its signed evidence and the outcome of verifying it again.
public struct EventItem: Sendable, Equatable {
    /// What verifying the stored evidence again found.
    public enum EvidenceCheck: Sendable, Equatable {
        case verified
        /// The reason (a rejection reason of `ingest`, or `evidence_unreadable`) and what it says.
        case failed(reason: String, detail: String)
    }

    public var position: LogPosition
    public var recordedAt: Int64
    public var event: Event
    /// The signed message as ingested (only for `raw` queries).
    public var signedPayload: String?
    /// Only for `reverify` queries.
    public var evidence: EvidenceCheck?
}

/// A page of `events`: the events and where the next page starts (nil when this is the last).
public struct EventPage: Sendable, Equatable {
    public var events: [EventItem]
    public var next: LogPosition?
}
