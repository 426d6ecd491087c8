/// What ingestion did with one line.
public enum IngestOutcome: Sendable, Equatable {
    /// Durable in the log at this (event) position.
    case appended(String)
    /// Already in the ledger: the position of the event the message was stored as.
    case duplicate(of: String)
    case rejected(reason: String, detail: String)
}

extension IngestOutcome {
    public var isDuplicate: Bool {
        if case .duplicate = self { true } else { false }
    }
}
