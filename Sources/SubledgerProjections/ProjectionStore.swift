import SubledgerEvents
import SubledgerLMDB
import SubledgerLog

/// Keeps the projection in memory and on disk: loads the current LMDB snapshot (or rebuilds it
/// from the log), catches up with the log after the snapshot's checkpoint, folds new events, and
/// writes fresh snapshots.
///
/// Restart cost is the snapshot load plus the log after its checkpoint; a rebuild streams the
/// whole log (event records, see `EventRecord`) through `EventView` into a fresh projection and
/// writes it side by side (see `SnapshotDirectory`). Not thread-safe: one owner folds and saves;
/// share `projection` (a value) with readers.
public final class ProjectionStore {
    /// The version of what snapshots hold and mean. Raise it whenever the stored layout or the
    /// fold changes: a snapshot of another version is rebuilt from the log on open.
    public static let schemaVersion: UInt32 = 2

    public let directory: String
    public let logDirectory: String
    public private(set) var projection: Projection
    /// How `init` obtained the projection.
    public let opening: Opening
    /// The snapshot in use (the last one loaded or written), if any.
    public private(set) var snapshotPath: String?

    public enum Opening: Sendable, Equatable {
        /// Loaded the current snapshot.
        case loaded
        /// Rebuilt from the log because of `RebuildReason`.
        case rebuilt(RebuildReason)
    }

    public enum RebuildReason: Sendable, Equatable {
        /// No snapshot yet.
        case missing
        /// The snapshot was written with another schema version.
        case schemaChanged(stored: UInt32, current: UInt32)
        /// The snapshot could not be read back.
        case damaged(String)
        /// The snapshot's checkpoint is not a record of this log (the log was replaced).
        case logMismatch
    }

    /// Opens the projection kept in `directory` for the log in `logDirectory`: loads the current
    /// snapshot and folds the log records after its checkpoint; with no usable snapshot (none,
    /// another schema version, damaged, or not from this log) rebuilds one from the whole log.
    public init(directory: String, logDirectory: String) throws(ProjectionError) {
        self.directory = directory
        self.logDirectory = logDirectory
        let (loaded, path, reason) = try Self.load(directory: directory, logDirectory: logDirectory)
        projection = loaded
        snapshotPath = path
        if let reason {
            opening = .rebuilt(reason)
            _ = try rebuild()
        } else {
            opening = .loaded
        }
    }

    /// The projection as of the log's end without writing anything, for a process beside the one
    /// that owns the snapshots (e.g. a CLI command while the server runs): the current snapshot
    /// and the log after its checkpoint, or, with no usable snapshot, the whole log folded in
    /// memory.
    public static func read(directory: String, logDirectory: String) throws(ProjectionError) -> Projection {
        let (loaded, _, reason) = try load(directory: directory, logDirectory: logDirectory)
        guard reason != nil else { return loaded }
        var fresh = Projection()
        try fold(log: logDirectory, into: &fresh, after: nil)
        return fresh
    }

    /// What the current snapshot in `directory` holds: its checkpoint and the events folded
    /// into it (what a restart does not replay); nil when there is none or it is unusable.
    public static func snapshotCheckpoint(directory: String) -> (checkpoint: LogPosition?, events: Int)? {
        guard let path = try? SnapshotDirectory(path: directory).current() else { return nil }
        return try? ProjectionSnapshot.readCheckpoint(from: path)
    }

    /// The current snapshot caught up with the log, or why it cannot be used.
    private static func load(
        directory: String, logDirectory: String
    ) throws(ProjectionError) -> (Projection, path: String?, unusable: RebuildReason?) {
        guard let path = try SnapshotDirectory(path: directory).current() else { return (Projection(), nil, .missing) }
        var projection: Projection
        do {
            projection = try ProjectionSnapshot.read(from: path, schemaVersion: schemaVersion)
        } catch let mismatch as SchemaMismatch {
            return (Projection(), nil, .schemaChanged(stored: mismatch.stored, current: schemaVersion))
        } catch {
            return (Projection(), nil, .damaged(String(describing: error)))
        }
        do { try fold(log: logDirectory, into: &projection, after: projection.lastPosition) } catch {
            guard error.kind == .logMismatch else { throw error }
            return (Projection(), nil, .logMismatch)
        }
        return (projection, path, nil)
    }

    /// Folds the log records written since the last fold, up to and including the record at
    /// `last` when given. Returns the number of records folded.
    ///
    /// A process that appends while it folds passes the last position it has appended: the scan
    /// then never reads past it into an append in progress, whose half-written frame it would
    /// otherwise take for damage.
    @discardableResult
    public func catchUp(through last: LogPosition? = nil) throws(ProjectionError) -> Int {
        let before = projection.eventsFolded
        if let last, let folded = projection.lastPosition, folded >= last { return 0 }
        try Self.fold(log: logDirectory, into: &projection, after: projection.lastPosition, through: last)
        return projection.eventsFolded - before
    }

    /// Writes the current state as a fresh snapshot and switches to it. Returns its size in bytes.
    @discardableResult
    public func saveSnapshot() throws(ProjectionError) -> Int {
        let (path, size) = try Self.writeSnapshot(of: projection, in: directory)
        snapshotPath = path
        return size
    }

    /// Records that `path` (written by `writeSnapshot(of:in:)` from an earlier copy of
    /// `projection`) is the snapshot in use.
    public func adoptSnapshot(at path: String) {
        snapshotPath = path
    }

    /// Writes `state` as a fresh snapshot in `directory` and switches to it. For an owner that
    /// writes from a copy of `projection` outside its lock; only one writer at a time.
    public static func writeSnapshot(of state: Projection, in directory: String) throws(ProjectionError) -> (path: String, size: Int) {
        var size = 0
        do {
            let path = try SnapshotDirectory(path: directory).replace { path in
                size = try ProjectionSnapshot.write(state, schemaVersion: schemaVersion, to: path)
            }
            return (path, size)
        } catch let error as ProjectionError {
            throw error
        } catch {
            throw ProjectionError(.snapshotStorage(detail: String(describing: error)))
        }
    }

    /// What a rebuild did, as `rebuild --json` reports it.
    public struct RebuildSummary: Sendable {
        /// Event records folded.
        public var events: Int
        /// Wall-clock seconds for the fold and the snapshot together.
        public var seconds: Double
        public var eventsPerSecond: Double
        /// The snapshot's data file size.
        public var snapshotBytes: Int
    }

    /// Folds the whole log into a fresh projection (on two cores, see `foldPipelined`), writes it
    /// as a new snapshot and switches to it. The previous snapshot keeps serving readers until
    /// the switch.
    @discardableResult
    public func rebuild() throws(ProjectionError) -> RebuildSummary {
        let clock = ContinuousClock()
        let start = clock.now
        // Every record may be an event: size the indexes for all of them.
        let records = (try? LogReader(directory: logDirectory).summary().records).map { Int(clamping: $0) } ?? 0
        var fresh = Projection(expectedEvents: records)
        try Self.foldPipelined(log: logDirectory, into: &fresh)
        projection = fresh
        let bytes = try saveSnapshot()
        let elapsed = clock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
        return RebuildSummary(
            events: fresh.eventsFolded, seconds: seconds,
            eventsPerSecond: seconds > 0 ? Double(fresh.eventsFolded) / seconds : 0, snapshotBytes: bytes)
    }

    /// Folds every event record after `checkpoint` (all of them with nil), up to `last`. The
    /// record at the checkpoint must exist: otherwise the projection is not from this log.
    static func fold(
        log: String, into projection: inout Projection, after checkpoint: LogPosition?, through last: LogPosition? = nil
    ) throws(ProjectionError) {
        var foundCheckpoint = checkpoint == nil
        var failure: ProjectionError?
        do {
            try LogReader(directory: log).scan(from: checkpoint ?? .start, to: last.map { LogPosition(rawValue: $0.rawValue + 1) }) { entry in
                if let checkpoint, entry.position <= checkpoint {
                    foundCheckpoint = foundCheckpoint || entry.position == checkpoint
                    return true
                }
                guard foundCheckpoint else { return false }
                guard entry.kind == EventRecord.kind else { return true }
                do throws(ProjectionError) { try projection.apply(recordPayload: entry.payload, at: entry.position) } catch {
                    failure = error
                    return false
                }
                return true
            }
        } catch {
            throw readFailure(error)
        }
        if let failure { throw failure }
        guard foundCheckpoint else { throw ProjectionError(.logMismatch) }
    }

    /// What a failed log scan means for a projection.
    static func readFailure(_ error: any Error) -> ProjectionError {
        guard let error = error as? LogError else { return ProjectionError(.logUnreadable(detail: String(describing: error))) }
        if case .noRecord = error { return ProjectionError(.logMismatch) }
        return ProjectionError(.logUnreadable(detail: error.description))
    }
}
