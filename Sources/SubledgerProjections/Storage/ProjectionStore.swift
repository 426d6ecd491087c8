#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore
import SubledgerEvents
import SubledgerLMDB
import SubledgerLog
import Synchronization

/// Owns the projection database of a data directory: opens the current one (or rebuilds it from
/// the log), folds the log records after its checkpoint into it batch by batch, and rebuilds it
/// side by side. Questions go to `reader`, which reads the database through LMDB read
/// transactions and may be used on any thread while this store folds.
///
/// Not thread-safe: one owner folds, rebuilds and closes (the `Ledger` holds it in a lock).
public final class ProjectionStore {
    /// The version of what the database holds and means. Raise it whenever the stored layout, the
    /// fold or a rollup changes: a database of another version is rebuilt from the log on open.
    public static let schemaVersion: UInt32 = 9

    public let directory: String
    public let logDirectory: String
    /// What the rollups depend on besides the events.
    public let settings: RollupSettings
    /// A database opened to fold into, its path, strings and header.
    typealias OpenedDatabase = (ProjectionDatabase, String, StringTable, ProjectionDatabase.Header)

    /// How `init` obtained the database.
    public private(set) var opening: Opening
    /// The database in use and its path.
    private(set) var database: ProjectionDatabase
    public private(set) var snapshotPath: String
    /// The owner's string table as of its last commit (another process's strings join it at
    /// this one's next fold). Readers take the published copy.
    var strings: StringTable
    var header: ProjectionDatabase.Header
    /// The table readers of `database` take. A rebuild's database gets one of its own: it
    /// numbers strings in another order, and a reader taken before the switch goes on reading
    /// the previous database.
    private(set) var published: PublishedStrings
    /// Whether the database was written since its checksum was sealed (see `seal()`).
    private var unsealed = false

    public enum Opening: Sendable, Equatable {
        /// Opened the current database.
        case loaded
        /// Rebuilt from the log because of `RebuildReason`.
        case rebuilt(RebuildReason)
    }

    public enum RebuildReason: Sendable, Equatable, CustomStringConvertible {
        /// No database yet.
        case missing
        /// The database was written with another schema version.
        case schemaChanged(stored: UInt32, current: UInt32)
        /// The database's rollups were computed under other settings (Small Business Program,
        /// the catalog's billing periods).
        case settingsChanged
        /// The database could not be read back.
        case damaged(String)
        /// The database's checkpoint is not a record of this log (the log was replaced).
        case logMismatch

        public var description: String {
            switch self {
            case .missing: "there is no projection database yet"
            case .schemaChanged(let stored, let current):
                "the projection database was written by another version of subledger (schema \(stored); this one uses \(current))"
            case .settingsChanged: "the projection database was written under another Small Business setting or catalog, or by a version of subledger that read the catalog differently"
            case .damaged(let detail): "the projection database is damaged (\(detail))"
            case .logMismatch: "the projection database covers a record the log no longer has (a torn tail was cut, or the log was replaced)"
            }
        }
    }

    /// Whether opening the database in use (in the projections `directory`) makes LMDB's lock
    /// file, which a backup does not copy: a database restored from one has none until opened.
    public static func openingMakesLockFile(directory: String) -> Bool {
        struct Retired: Error {}
        let lacksLockFile = try? SnapshotDirectory(path: directory).withCurrent { current in
            // Gone: a rebuild switched CURRENT and removed the one read.
            guard access(current, F_OK) == 0 else { throw Retired() }
            return access(current + "/lock.mdb", F_OK) != 0
        }
        return lacksLockFile ?? false
    }

    /// Opens the projection kept in `directory` for the log in `logDirectory` and folds the log
    /// records after its checkpoint; with no usable database (none, another schema version,
    /// damaged, or not from this log) rebuilds one from the whole log, telling `observer` how it
    /// goes. With `mayRebuild` false, a database that needs a rebuild is
    /// `ProjectionError.Kind.rebuildNeeded` instead: another process may have it open. With
    /// `rebuildingBefore`, a rebuild folds only the records before that position (see
    /// `ProjectionRebuild.end`), and the caller catches up with the rest.
    public init(
        directory: String, logDirectory: String, settings: RollupSettings = RollupSettings(), observer: RebuildObserver? = nil,
        mayRebuild: Bool = true, rebuildingBefore end: LogPosition? = nil
    ) throws(ProjectionError) {
        self.directory = directory
        self.logDirectory = logDirectory
        self.settings = settings
        var reason: RebuildReason?
        var opened: OpenedDatabase?
        var inUse: SnapshotCounts?
        do {
            opened = try Self.openCurrent(directory: directory)
            if opened == nil { reason = .missing }
            if let current = opened, !settings.matches(current.3.settings) {
                inUse = (try? ProjectionReader(database: current.0, strings: PublishedStrings(current.2)).summary()).map(SnapshotCounts.init)
                opened = nil
                reason = .settingsChanged
            }
        } catch let mismatch as SchemaMismatch {
            reason = .schemaChanged(stored: mismatch.stored, current: Self.schemaVersion)
        } catch {
            // A database this user may not open is no damage: a rebuild would fail to write as
            // well, or replace a good database with a copy the owner then cannot open.
            if let denied = ProjectionError(accessDenied: error, directory: directory) { throw denied }
            reason = .damaged(String(describing: error))
        }
        if opened == nil {
            guard mayRebuild else { throw ProjectionError(.rebuildNeeded(reason ?? .missing)) }
            opened = try ProjectionRebuild(
                directory: directory, logDirectory: logDirectory, settings: settings, reason: reason, inUse: inUse, observer: observer, end: end
            ).run().opened
        }
        let (database, path, strings, header) = opened!
        self.database = database
        snapshotPath = path
        self.strings = strings
        self.header = header
        published = PublishedStrings(strings)
        opening = reason.map(Opening.rebuilt) ?? .loaded
        guard reason == nil else { return }
        do throws(ProjectionError) {
            // Another ledger's database (copied in, or a restore that mixed two backups) may have
            // a checkpoint this log also has a record at: its answers would pass for this log's.
            if let identity = header.logIdentity, try Self.logIdentity(of: logDirectory) != identity { throw ProjectionError(.logMismatch) }
            if let end {
                // Beside appends, only as far as the log was: past it, records may not be synced,
                // and a checkpoint there is another log's.
                if let checkpoint = header.checkpoint, checkpoint >= end { throw ProjectionError(.logMismatch) }
                try catchUp(through: LogPosition(rawValue: end.rawValue - 1))
            } else {
                try catchUp()
            }
        } catch where error.kind == .logMismatch {
            guard mayRebuild else { throw ProjectionError(.rebuildNeeded(.logMismatch)) }
            try rebuild(reason: .logMismatch, observer: observer, before: end)
            opening = .rebuilt(.logMismatch)
        }
    }

    /// Answers questions from the database as of the last fold, on any thread.
    public var reader: ProjectionReader {
        ProjectionReader(database: database, strings: published)
    }

    /// Events folded, duplicates included.
    public var eventsFolded: Int { header.events }
    /// The highest position folded: the checkpoint.
    public var lastPosition: LogPosition? { header.checkpoint }

    /// The current database's checkpoint and the events folded into it (what a restart does not
    /// fold again), without opening it for writing; nil when there is none or it is unusable.
    public static func snapshotCheckpoint(directory: String) -> (checkpoint: LogPosition?, events: Int)? {
        guard let (_, _, _, header) = try? openCurrent(directory: directory) else { return nil }
        return (header.checkpoint, header.events)
    }

    /// Whether the database in use in `directory` was built under other settings than
    /// `settings`, so that a read under them rebuilds it (or, beside its writer, refuses); false
    /// when there is none to read.
    public static func isBuilt(underOtherSettingsThan settings: RollupSettings, directory: String) -> Bool {
        guard let current = try? openCurrent(directory: directory) else { return false }
        return !settings.matches(current.3.settings)
    }

    /// The database `CURRENT` names, opened for writing, with its strings and header.
    private static func openCurrent(
        directory: String
    ) throws -> OpenedDatabase? {
        try SnapshotDirectory(path: directory).withCurrent { path in
            // Opening would create an empty environment there, left behind beside the rebuild.
            var status = stat()
            guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                throw SnapshotDamage("CURRENT names \(path), which is not there")
            }
            // Before LMDB maps a page: LMDB has no page checksums and may abort on a damaged one.
            try LMDBFileSeal.check(path)
            let (database, strings, header) = try open(path)
            return (database, path, strings, header)
        }
    }

    /// The database at `path`, opened to fold into, with its strings and header; `inOrder` as
    /// `ProjectionDatabase` has it.
    static func open(_ path: String, inOrder: Bool = false) throws -> (ProjectionDatabase, StringTable, ProjectionDatabase.Header) {
        let database = try ProjectionDatabase(path: path, readOnly: false, inOrder: inOrder)
        let (strings, header) = try database.environment.read { txn in
            let header = try database.header(txn)
            guard header.schema == schemaVersion else { throw SchemaMismatch(stored: header.schema) }
            return (try database.loadStrings(txn), header)
        }
        return (database, strings, header)
    }

    /// Flushes the database and seals its checksum, so the next open can tell damage from a
    /// database this build wrote. Call with nothing else writing (at close).
    public func seal() throws(ProjectionError) {
        guard unsealed else { return }
        do {
            try database.environment.sync(force: true)
            try LMDBFileSeal.seal(snapshotPath, usedBytes: try database.environment.usedBytes())
        } catch {
            throw ProjectionError(.snapshotStorage(detail: String(describing: error)))
        }
        unsealed = false
    }

    /// Flushes what the fold committed (commits do not flush: the log is the truth, and a
    /// database a system crash damaged is rebuilt from it).
    public func sync() throws(ProjectionError) {
        do { try database.environment.sync(force: true) } catch {
            throw ProjectionError(.snapshotStorage(detail: String(describing: error)))
        }
    }

    /// Before a write: the sealed checksum would no longer describe the file. Another process
    /// may have sealed it since this one unsealed it: a command seals when it finds the log's
    /// writer lock free, which it is while this process folds as a command too.
    func willWrite() throws(ProjectionError) {
        guard !unsealed || LMDBFileSeal.hasSeal(snapshotPath) else { return }
        do { try LMDBFileSeal.unseal(snapshotPath) } catch {
            guard case .io(let path, let code, let operation) = error.kind else { throw ProjectionError(.snapshotStorage(detail: error.description)) }
            throw ProjectionError(.snapshotIO(path: path, errno: code, operation: operation))
        }
        unsealed = true
    }

    /// What a rebuild did, as `rebuild --json` reports it.
    public struct RebuildSummary: Sendable {
        /// Event records folded.
        public var events: Int
        /// Wall-clock seconds for the fold and the database write together.
        public var seconds: Double
        /// Wall-clock seconds until the database is written: counting the log's records, sizing
        /// the indexes, reading the log and folding it in memory. A rebuild in batches writes as
        /// it folds: all of `seconds` but the compaction and the switch.
        public var foldSeconds: Double
        /// The database's data file size.
        public var snapshotBytes: Int
        /// In memory or in batches.
        public var method: RebuildMethod

        public var eventsPerSecond: Double { Self.rate(events, seconds) }
        public var foldEventsPerSecond: Double { Self.rate(events, foldSeconds) }

        private static func rate(_ events: Int, _ seconds: Double) -> Double {
            seconds > 0 ? Double(events) / seconds : 0
        }
    }

    /// Folds the whole log into a fresh database (in memory on two cores, see `foldPipelined`,
    /// or in batches, as `strategy` says), writes it side by side and switches to it. The
    /// previous database keeps serving readers until the switch.
    @discardableResult
    public func rebuild(strategy: RebuildStrategy = .automatic, observer: RebuildObserver? = nil) throws(ProjectionError) -> RebuildSummary {
        try rebuild(strategy: strategy, reason: nil, inUse: (try? reader.summary()).map(SnapshotCounts.init), observer: observer)
    }

    @discardableResult
    private func rebuild(
        strategy: RebuildStrategy = .automatic, reason: RebuildReason?, inUse: SnapshotCounts? = nil, observer: RebuildObserver?,
        before end: LogPosition? = nil
    ) throws(ProjectionError) -> RebuildSummary {
        let built = try ProjectionRebuild(
            directory: directory, logDirectory: logDirectory, settings: settings, strategy: strategy, reason: reason, inUse: inUse,
            observer: observer, end: end
        ).run()
        let replaced = snapshotPath
        (database, snapshotPath, strings, header) = built.opened
        published = PublishedStrings(strings)
        unsealed = false
        retire(replaced: replaced)
        return built.summary
    }

    /// Removes the databases beside the one in use that a rebuild's switch kept because a process
    /// had them open, those no process has open now. Call only holding the log's writer lock.
    public func retireReplaced() {
        SnapshotDirectory(path: directory).retireReplaced()
    }

    /// Removes the database at `path`, which this store used before a rebuild (the switch kept
    /// it, open here), unless a process still has it open: a reader of this one holding it too.
    public func retire(replaced path: String) {
        guard path != snapshotPath, path.hasPrefix(directory + "/") else { return }
        SnapshotDirectory(path: directory).retire(String(path.dropFirst(directory.count + 1)))
    }

    /// Folds the whole log in `logDirectory` into a fresh database in `directory` and switches to
    /// it, reading of the database in use only its counts, and only when it is sealed
    /// (`SnapshotCounts`): what `subledger rebuild` runs, telling `observer` how it goes.
    public static func rebuild(
        directory: String, logDirectory: String, settings: RollupSettings, strategy: RebuildStrategy = .automatic,
        observer: RebuildObserver? = nil
    ) throws(ProjectionError) -> RebuildSummary {
        try ProjectionRebuild(
            directory: directory, logDirectory: logDirectory, settings: settings, strategy: strategy,
            inUse: SnapshotCounts(current: directory), observer: observer
        ).run().summary
    }

    /// The empty database a rebuild in batches folds into at `path`: a store that only catches
    /// up (its `directory` is that database, not a snapshot directory to rebuild in).
    init(building path: String, logDirectory: String, settings: RollupSettings) throws {
        let (database, strings, header) = try Self.open(path, inOrder: true)
        directory = path
        self.logDirectory = logDirectory
        self.settings = settings
        opening = .loaded
        self.database = database
        snapshotPath = path
        self.strings = strings
        self.header = header
        published = PublishedStrings(strings)
    }

    /// Which log a database is a projection of: the CRC-32C of the log's first event record
    /// (its recorded time and event, unique to a ledger); nil for a log with no event yet.
    static func logIdentity(of logDirectory: String) throws(ProjectionError) -> UInt32? {
        guard logExists(logDirectory) else { return nil }
        var identity: UInt32?
        do {
            try LogReader(directory: logDirectory).scan { entry in
                guard entry.kind == EventRecord.kind else { return true }
                identity = CRC32C.checksum(entry.payload)
                return false
            }
        } catch {
            throw readFailure(error)
        }
        return identity
    }

    /// What a failed log scan means for a projection.
    static func readFailure(_ error: any Error) -> ProjectionError {
        guard let error = error as? LogError else { return ProjectionError(.logUnreadable(detail: String(describing: error))) }
        switch error {
        case .noRecord: return ProjectionError(.logMismatch)
        case .corrupted(let problem): return ProjectionError(.logCorrupted(problem))
        default: return ProjectionError(.logUnreadable(detail: error.description))
        }
    }
}

/// The string table readers of one database start from, published by the fold after each commit.
/// A reader whose transaction sees more strings (a commit it began after, by this process or
/// another) loads the rest from the database (`ProjectionReader.read`).
final class PublishedStrings: Sendable {
    private let table: Mutex<StringTable>

    init(_ table: StringTable) {
        self.table = Mutex(table)
    }

    /// `table`, unless a larger one was published meanwhile: every table published holds
    /// committed strings of this one database, numbered alike.
    func publish(_ table: StringTable) {
        self.table.withLock { if $0.count < table.count { $0 = table } }
    }

    var current: StringTable { table.withLock { $0 } }
}
