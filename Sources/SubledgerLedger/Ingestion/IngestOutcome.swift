/// What ingestion did with one line.
public enum IngestOutcome: Sendable, Equatable {
    /// Durable in the log at this (event) position.
    case appended(String)
    case duplicate
    case rejected(reason: String, detail: String)
}
