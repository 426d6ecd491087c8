/// What a rebuild reports as it goes: `subledger rebuild`, and a rebuild on open (a new schema
/// version, a damaged database), print it on stderr.
public enum RebuildProgress: Sendable, Equatable {
    /// About to fold the log's `records` by `method`; `estimatedPeakBytes` is the peak memory of
    /// a rebuild in memory; `reason` says why a database is rebuilt on open (nil for a rebuild
    /// asked for).
    case folding(records: Int, estimatedPeakBytes: Int, reason: ProjectionStore.RebuildReason?, method: RebuildMethod)
    /// After the first batch of events folded, then every `ProjectionStore.progressEvery` (in
    /// batches, also every `ProjectionRebuild.batchedProgressInterval`).
    case folded(events: Int, records: Int)
    /// The fold in memory is done; the database is being written (a rebuild in batches writes as
    /// it folds).
    case writing(timelines: Int)
    /// The write in memory has put `written` of its `timelines` in the new database: every
    /// `ProjectionStore.progressEvery`, and once all are.
    case wroteTimelines(written: Int, of: Int)
    /// The write in memory has put the timelines and their indexes in the new database, and
    /// writes the reports' rollups once they are summed.
    case writingRollups
    /// A rebuild in batches has folded every timeline and sums the rollups of its `timelines`
    /// (subscriptions and purchases).
    case summingRollups(timelines: Int)
    /// A rebuild in batches has folded everything and copies the database it folded into,
    /// compacted, into the new snapshot.
    case compacting
    /// The new database is written, switched to and open.
    case finished(seconds: Double)
    /// Another command is rebuilding the database on open; this one waits for it.
    case waitingForAnotherRebuild
}

/// Called on the thread that runs the rebuild, in the order of the reports.
public typealias RebuildObserver = @Sendable (RebuildProgress) -> Void
