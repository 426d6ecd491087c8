import SubledgerLMDB
import SubledgerLog

extension ProjectionStore {
    /// About how much memory a rebuild of a log of `records` records, folding into at most
    /// `timelines` subscriptions and purchases (each record makes at most one; nil when nothing
    /// bounds them better), holds at its peak (while it writes: everything folded is held until
    /// written, and the rollups are summed beside it): the notification and transaction indexes,
    /// sized for every record, the timeline index, what each record and each timeline add
    /// (facts, versions and renewals; a timeline, its arrays, its rollup changes and its place
    /// in the write's orders), and the runtime.
    ///
    /// Fitted to peak RSS, 2026-12-05, on three mixes of the same 10 M records (the benchmark's
    /// tiled fixture): the simulator's, 2.44 M timelines, peaked at 3.28–3.41 GB (estimate
    /// 4.7 GB); the records gathered into 333 k timelines of 30, at 3.32–3.53 GB (4.1 GB); each
    /// record its own timeline, at 5.53–5.68 GB (6.6 GB, the estimate without a bound). At 955 k
    /// records 393–399 MB and 585–601 MB (estimates 523 MB and 711 MB with the timeline index
    /// sized, as since, for a timeline every four records); at 159 k, 98–111 MB (136 MB). A
    /// record's 340 bytes cover a fact, a transaction version and a renewal (200 bytes) with the
    /// room their arrays grow into (up to half again), and its postings.
    /// Erring high is the right side: a rebuild that runs out of memory ends, and one on open
    /// would start over at every restart.
    public static func estimatedPeakBytes(records: Int, timelines: Int? = nil) -> Int {
        runtime + Projection.indexBytes(expectedEvents: records) + estimatedFoldedBytes(records: records, timelines: timelines)
    }

    /// The part of `estimatedPeakBytes` the fold allocates as it goes (the indexes are allocated
    /// before it): what `HeapPrefault` may fault in ahead of it.
    static func estimatedFoldedBytes(records: Int, timelines: Int?) -> Int {
        bytesPerRecord * records + bytesPerTimeline * min(timelines ?? records, records)
    }

    private static let runtime = 60 << 20
    private static let bytesPerRecord = 340
    private static let bytesPerTimeline = 260
}

/// What the projection database in use holds, which bounds the timelines a rebuild of the log it
/// was made from makes (`estimatedPeakBytes`).
struct SnapshotCounts {
    let timelines: Int
    let events: Int
    let checkpoint: LogPosition?

    init(timelines: Int, events: Int, checkpoint: LogPosition?) {
        self.timelines = timelines
        self.events = events
        self.checkpoint = checkpoint
    }

    /// The counts of the database `directory`'s `CURRENT` names when it is sealed (closed cleanly,
    /// its checksum matched), read from its header and its timelines' entry count alone; nil
    /// otherwise. `subledger rebuild` is what a user runs when opening that database fails, so
    /// it reads nothing an unsealed one might hold damaged.
    init?(current directory: String) {
        struct Unsealed: Error {}
        let counts = try? SnapshotDirectory(path: directory).withCurrent { path in
            guard LMDBFileSeal.isSealed(path) else { throw Unsealed() }
            let database = try ProjectionDatabase(path: path, readOnly: true)
            return try database.environment.read { txn in (try database.header(txn), try txn.entryCount(in: database.timelines)) }
        }
        guard let (header, timelines) = counts else { return nil }
        self.init(timelines: timelines, events: header.events, checkpoint: header.checkpoint)
    }

    init(_ summary: ProjectionReader.Summary) {
        self.init(timelines: summary.timelines, events: summary.events, checkpoint: summary.checkpoint)
    }

    /// At most how many timelines folding the whole log of `records` records makes: these, plus
    /// one for each record not folded into them (each makes at most one). Nil unless the
    /// database's checkpoint is a record of this log, as catching up requires, and it folded no
    /// more events than the log has records: a database made from another log bounds nothing.
    func timelineBound(records: Int, logDirectory: String) -> Int? {
        guard events <= records, let checkpoint, (try? LogReader(directory: logDirectory).record(at: checkpoint)) != nil else { return nil }
        return min(records, timelines + max(0, records - events))
    }
}
