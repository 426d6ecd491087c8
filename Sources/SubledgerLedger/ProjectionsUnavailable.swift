import SubledgerCore
import SubledgerProjections

/// A read refused because the projection database is being rebuilt on open in the background
/// (`Ledger(…, rebuildingInBackground: true)`), or because that rebuild failed. Ingestion goes
/// on meanwhile.
public struct ProjectionsUnavailable: Error, Sendable, CustomStringConvertible {
    /// Why the database is rebuilt.
    public let reason: ProjectionStore.RebuildReason
    /// The rebuild's last report.
    public var progress: RebuildProgress?
    /// Why the rebuild failed; nil while it runs.
    public var failure: (any Error)?
    /// Whether the dedup index is being built from the logs first, so that notifications are not
    /// stored yet either.
    public var afterIndexBuild = false

    public init(reason: ProjectionStore.RebuildReason, progress: RebuildProgress? = nil, failure: (any Error)? = nil) {
        self.reason = reason
        self.progress = progress
        self.failure = failure
    }

    public var description: String {
        if let failure { return "could not rebuild the projection database (\(reason)): \(failure)" }
        let notifications = afterIndexBuild ? "notifications once the dedup index, built first, is" : "notifications are stored meanwhile"
        return "the projection database is being rebuilt (\(reason))\(progressText); reads are answered once it is done, and \(notifications)"
    }

    private var progressText: String {
        switch progress {
        case .folding(let records, _, _, _): ": 0 of \(NumberText.grouped(Int64(records))) events folded"
        case .folded(let events, let records): ": \(NumberText.grouped(Int64(events))) of \(NumberText.grouped(Int64(records))) events folded"
        case .writing, .wroteTimelines, .writingRollups, .summingRollups, .compacting: ": writing the database"
        case .finished: ": opening it"
        case .waitingForAnotherRebuild: ": waiting for another process's rebuild"
        case nil: ""
        }
    }
}
