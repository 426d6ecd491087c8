import SubledgerCore
import SubledgerLog

/// A rebuild of a projection database from the whole log, written beside the one in use and
/// switched to: in memory on two cores (`ProjectionStore.foldPipelined`, then
/// `ProjectionDatabase.write`) or in batches as ingestion folds, as `strategy` and the memory
/// the process can still take decide. The database in use keeps serving readers until the switch.
struct ProjectionRebuild {
    /// The snapshot directory to rebuild in.
    let directory: String
    let logDirectory: String
    let settings: RollupSettings
    var strategy: RebuildStrategy = .automatic
    /// Why the database is rebuilt, for the first progress line; nil when asked to.
    var reason: ProjectionStore.RebuildReason?
    /// The database in use's counts, which bound the timelines a fold of this log can find.
    var inUse: SnapshotCounts?
    var observer: RebuildObserver?
    /// Folds only the records before it, when given: the log's end as its writer opened it, when
    /// appends go on during the rebuild (a server's rebuild on open). What is appended after it
    /// may not be durable yet; the owner catches up with it once acknowledged. Past
    /// `LogPosition.firstRecord`.
    var end: LogPosition?

    /// The longest a rebuild in batches folds without a progress report.
    static let batchedProgressInterval = Duration.seconds(2)

    /// Folds, writes and switches, then opens the new database to fold into.
    func run() throws(ProjectionError) -> (opened: ProjectionStore.OpenedDatabase, summary: ProjectionStore.RebuildSummary) {
        let clock = ContinuousClock()
        let start = clock.now
        // Every record may be an event: size the indexes for all of them.
        let records = (try? LogReader(directory: logDirectory).summary().records).map { Int(clamping: $0) } ?? 0
        let timelines = inUse.flatMap { $0.timelineBound(records: records, logDirectory: logDirectory) }
        let estimate = ProjectionStore.estimatedPeakBytes(records: records, timelines: timelines)
        let headroom = records > 0 ? MemoryHeadroom.current() : nil
        let method = strategy.method(estimate: estimate, headroom: headroom)
        observer?(.folding(records: records, estimatedPeakBytes: estimate, reason: reason, method: method))
        if case .batched = method {
            return try inBatches(records: records, batchRecords: ProjectionStore.foldBatchRecords, method: method, since: start)
        }
        var fresh = Projection(rebuildingExpectedEvents: records)
        do {
            // The fold's pace is set by the thread that applies the events, and a good part of
            // its time went to faulting in the memory it takes (see `HeapPrefault`). Not beside a
            // server (`end` given): the rebuild runs off the main thread, so malloc serves it from
            // an arena of its own rather than the main heap this grows, and the padding it sets,
            // process-wide, made each arena the server's threads took meanwhile writable whole,
            // which a data size limit counts.
            let roomForPadding = end == nil && (headroom.map { !$0.fallsShort(ofResident: estimate + HeapPrefault.padding) } ?? true)
            let prefault = roomForPadding ? HeapPrefault(budget: ProjectionStore.estimatedFoldedBytes(records: records, timelines: timelines)) : nil
            defer { prefault?.stop() }
            // The indexes, in particular, took the reader its first seconds while the core that
            // folds stood idle.
            let tables = RangePrefault(fresh.reservedMemory)
            defer { tables.wait() }
            try ProjectionStore.foldPipelined(log: logDirectory, before: end, into: &fresh) { observer?(.folded(events: $0, records: records)) }
        }
        let folded = clock.now
        observer?(.writing(timelines: fresh.timelineCount))
        // Millions of small arrays: freeing them takes a good part of a second, which nobody
        // needs to wait for. Not on Dispatch's pool, which waits forever for a thread the
        // process may not create (a spent data size limit); without one they are freed here.
        defer { (try? PosixThread.spawn(name: "free-projection", niceness: 10) { [fresh] in _ = fresh.eventsFolded })?.detach() }
        var size = 0
        let path: String
        do {
            path = try SnapshotDirectory(path: directory).replace { path in
                size = try ProjectionDatabase.write(
                    &fresh, settings: settings, schemaVersion: ProjectionStore.schemaVersion, logIdentity: try ProjectionStore.logIdentity(of: logDirectory), to: path
                ) {
                    observer?($0)
                }
            }
        } catch let error as ProjectionError {
            throw error
        } catch {
            throw ProjectionError(.snapshotStorage(detail: String(describing: error)))
        }
        let opened: ProjectionStore.OpenedDatabase
        do {
            let database = try ProjectionDatabase(path: path, readOnly: false)
            let header = try database.environment.read { try database.header($0) }
            opened = (database, path, fresh.strings, header)
        } catch {
            throw ProjectionError(.snapshotStorage(detail: String(describing: error)))
        }
        let seconds = (clock.now - start).inSeconds
        observer?(.finished(seconds: seconds))
        return (opened, ProjectionStore.RebuildSummary(
            events: fresh.eventsFolded, seconds: seconds, foldSeconds: (folded - start).inSeconds, snapshotBytes: size, method: method))
    }

    /// Folds the whole log into a new, empty database batch by batch, as ingestion folds
    /// (`ProjectionStore.catchUp`), and switches to it: what such a rebuild holds in memory is one batch's
    /// records and timelines, whatever the history, and at most `instantsHeld` activity changes
    /// (`ProjectionDatabase.writeRollupsOfStoredTimelines`).
    func inBatches(
        records: Int, batchRecords: Int, instantsHeld: Int = ProjectionDatabase.instantsHeld, method: RebuildMethod = .batched(shortOf: nil),
        progressInterval: Duration = batchedProgressInterval, since start: ContinuousClock.Instant = .now
    ) throws(ProjectionError) -> (opened: ProjectionStore.OpenedDatabase, summary: ProjectionStore.RebuildSummary) {
        let clock = ContinuousClock()
        var folded = start
        var events = 0
        var size = 0
        let path: String
        let opened: (ProjectionDatabase, StringTable, ProjectionDatabase.Header)
        do {
            let snapshots = SnapshotDirectory(path: directory)
            path = try snapshots.replace { path in
                // Folded beside the snapshot, then copied into it compacted: pages split by
                // inserts in no order and freed by rewritten timelines would leave it about twice
                // the size a rebuild in memory writes. Its name is that of a snapshot in
                // progress, so the next rebuild removes it after a crash, as it does that one.
                let scratch = path + "-batches"
                // Also when the fold fails: on a full disk it is the space to give back, and the
                // larger part (after the store below has closed it, in its own scope).
                defer { try? snapshots.removeTree(scratch) }
                var empty = Projection(rebuildingExpectedEvents: 0)
                _ = try ProjectionDatabase.write(&empty, settings: settings, schemaVersion: ProjectionStore.schemaVersion, logIdentity: nil, to: scratch)
                // In a scope of its own, so that its environment is closed before it is removed.
                do {
                    let building = try ProjectionStore(building: scratch, logDirectory: logDirectory, settings: settings)
                    // Also by the clock: folding in batches runs at 50-100 k events a second, so a
                    // line per million left 10-20 s of silence.
                    var reported = (events: 0, at: ContinuousClock.now)
                    let last = end.map { LogPosition(rawValue: $0.rawValue - 1) }
                    _ = try building.catchUp(through: last, batchRecords: batchRecords, keepingRollups: false) { events in
                        let now = ContinuousClock.now
                        guard reported.events == 0 || events - reported.events >= ProjectionStore.progressEvery
                            || now - reported.at >= progressInterval else { return }
                        reported = (events, now)
                        observer?(.folded(events: events, records: records))
                    }
                    events = building.eventsFolded
                    observer?(.summingRollups(timelines: try building.reader.summary().timelines))
                    try building.database.writeRollupsOfStoredTimelines(
                        strings: building.strings, environments: building.header.environments, settings: settings,
                        instantsHeld: instantsHeld)
                    folded = clock.now
                    observer?(.compacting)
                    try building.database.environment.copy(to: path, compact: true)
                }
                try snapshots.syncPath(path + "/data.mdb", directory: false)
            }
            opened = try ProjectionStore.open(path)
            size = try opened.0.environment.usedBytes()
        } catch let error as ProjectionError {
            throw error
        } catch {
            throw ProjectionError(.snapshotStorage(detail: String(describing: error)))
        }
        let seconds = (clock.now - start).inSeconds
        observer?(.finished(seconds: seconds))
        return ((opened.0, path, opened.1, opened.2), ProjectionStore.RebuildSummary(
            events: events, seconds: seconds, foldSeconds: (folded - start).inSeconds, snapshotBytes: size, method: method))
    }
}
