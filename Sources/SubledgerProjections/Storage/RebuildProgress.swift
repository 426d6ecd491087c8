/// What a rebuild reports as it goes: `subledger rebuild`, and a rebuild on open (a new schema
/// version, a damaged database), print it on stderr.
public enum RebuildProgress: Sendable, Equatable {
    /// About to fold the log's `records`; `reason` says why a database is rebuilt on open (nil
    /// for a rebuild asked for).
    case folding(records: Int, estimatedPeakBytes: Int, reason: ProjectionStore.RebuildReason?)
    /// Every `ProjectionStore.progressEvery` events folded.
    case folded(events: Int, records: Int)
    /// The fold is done; the database is being written.
    case writing(timelines: Int)
    /// The new database is in use.
    case finished(seconds: Double)
}

public typealias RebuildObserver = @Sendable (RebuildProgress) -> Void

extension ProjectionStore {
    /// About how much memory a rebuild of a log of `records` records holds at its peak (the end
    /// of the fold, everything folded held in memory until written): the notification and
    /// transaction indexes, sized for every record, the timeline index, and what each event adds
    /// to the timelines, postings and token index.
    ///
    /// Fitted to the peak RSS of rebuilds of the realistic mix (`Tools/bench --scaling`,
    /// 2026-12-02: 123 MB at 159 k events, 629 MB at 955 k, 4,459 MB at 10 M), which it meets
    /// within about 15 % either way: a ledger of long subscriptions holds less per event, one of
    /// many short ones more.
    public static func estimatedPeakBytes(records: Int) -> Int {
        let runtime = 25 << 20
        let perEvent = 420
        let indexes = 2 * HashIndex.bytes(capacity: records) + HashIndex.bytes(capacity: records / 8)
        return runtime + indexes + perEvent * records
    }
}
