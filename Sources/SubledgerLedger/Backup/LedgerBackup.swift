#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore
import SubledgerLog
import SubledgerProjections

/// `subledger backup`: a consistent copy of a data directory whose ledger may be serving in
/// another process, itself a data directory that `--data` opens.
///
/// Order is what makes it consistent without stopping the writer: the derived LMDB databases are
/// copied first (each in one read transaction); then the event log's end is taken as a bound,
/// the evidence log copied, and the event log copied up to that bound. Each step is a moment no
/// earlier than the one before it, so the logs hold every event the databases cover, and every
/// event copied finds its evidence (evidence is durable before its event is appended), at every
/// step: a copy stopped anywhere is a ledger a crash could have left. The ledger that opens the
/// backup folds and indexes what the logs hold past the databases' checkpoints, and rebuilds
/// those ahead of the log (a backup stopped before the log was copied). Sealed segments already
/// in the destination are skipped.
///
/// A backup brings an earlier one up to date in place, so it cannot write under a temporary
/// name and rename at the end. Instead `BACKUP-INCOMPLETE` is written before anything else and
/// removed only once every log is copied: a backup that failed (damage in the source, a full
/// disk) or was killed leaves it, and `verify` and every read of that directory report the copy
/// as incomplete (exit 3) instead of answering from a part of the ledger. Running the backup
/// again completes it. One that completed and verified is noted in the ledger (`LastBackup`).
public enum LedgerBackup {
    public struct Summary: Sendable {
        public var destination: String
        public var events = LogCopy.Summary()
        public var evidence = LogCopy.Summary()
        public var quarantine = LogCopy.Summary()
        /// Configuration, roots, catalog and any other file of the data directory's top level.
        public var files = 0
        public var projections = false
        public var dedupIndex = false
        /// The backup's logs checked as `verify` checks them: records and bytes found, damage.
        public var records: UInt64 = 0
        public var bytes: Int64 = 0
        public var problems: [LogProblem] = []
        public var verified: Bool { problems.isEmpty }
        public var seconds = 0.0
        /// False when copying stopped at damage in the source (in `problems`): the destination
        /// keeps `BACKUP-INCOMPLETE`.
        public var complete = true
    }

    /// A directory whose backup did not finish: it may lack events and evidence the ledger has.
    public struct Incomplete: Error, Sendable, CustomStringConvertible {
        public var directory: String

        public var description: String {
            "\(directory) holds a backup that did not finish (\(DataDirectoryLayout(directory).incompleteBackup) is there): it may lack events and evidence; run `subledger --data LEDGER_DIR backup --to \(directory)` again, or restore from another backup. If the ledger itself is lost, this copy still holds each event it copied with its evidence: remove the mark and it opens as a ledger a crash stopped"
        }

        /// As `verify` lists it.
        public var problem: LogProblem {
            LogProblem(file: DataDirectoryLayout(directory).incompleteBackup, offset: 0, kind: .truncated,
                       detail: "a backup into this directory did not finish: its logs may end before the ledger's; run `subledger backup --to DIR` again from the ledger")
        }
    }

    /// Throws `Incomplete` when `directory` holds a backup that did not finish.
    public static func requireComplete(_ directory: String) throws(Incomplete) {
        if FileIO.exists(DataDirectoryLayout(directory).incompleteBackup) { throw Incomplete(directory: directory) }
    }

    /// The destination holds what a backup would overwrite: files of something other than a data
    /// directory, or a ledger whose logs are not an earlier copy of this one's. Nothing was written.
    public struct DestinationRefused: Error, Sendable, CustomStringConvertible {
        public var destination: String
        public var reason: String

        public var description: String {
            "\(destination) \(reason); nothing was written: pass a new or empty --to DIR, or an earlier backup of this ledger"
        }
    }

    /// The ledger is damaged in what a backup would copy into an earlier backup, which was left
    /// as it was.
    public struct DamagedSource: Error, Sendable, CustomStringConvertible {
        public var problem: LogProblem
        public var destination: String

        public var description: String {
            "the ledger is damaged: \(problem.kind.rawValue) in \(problem.file) at offset \(problem.offset): \(problem.detail). Nothing was written to \(destination), which still holds its earlier backup; run `subledger verify` on the ledger, and restore the damaged segment from that backup"
        }
    }

    /// What to report while copying: a stage name and a line of progress. An error it throws
    /// stops the backup there, as a kill would, and is rethrown.
    public typealias Progress = (String) throws -> Void

    /// Backs up the data directory `source` into `destination` (created when missing; an earlier
    /// backup of the same ledger is brought up to date), then verifies the copy's logs. Without
    /// `projections`, the projection database is left out (one already in `destination`, of an
    /// earlier backup, stays): opening the copy folds the log into it or rebuilds it.
    public static func run(
        from source: String, to destination: String, projections: Bool = true, progress: Progress = { _ in }, warning: (String) -> Void = { _ in }
    ) throws -> Summary {
        let started = ContinuousClock.now
        let from = DataDirectoryLayout(source)
        let to = DataDirectoryLayout(destination)
        guard FileIO.exists(from.configuration) else {
            throw LedgerError.notInitialized("no data directory at \(source) (no config.json); pass the ledger's --data DIR")
        }
        if let a = FileIO.canonicalPath(source), let b = FileIO.canonicalPath(existingPrefixOf: destination), a == b || b.hasPrefix(a + "/") {
            throw DestinationRefused(destination: destination, reason: "is inside the data directory \(source): the backup must go outside it")
        }
        // One backup into a directory at a time (an hourly timer and a manual run): the next
        // waits, then brings the copy up to date. Each removed what the other was writing.
        try FileIO.makeDirectory(destination)
        let lock: FileLock?
        // Said as the wait begins; an error from it is dropped, since nothing can stop the wait.
        do { lock = try FileLock(destination, isDirectory: true) { try? progress("waiting for another backup into \(destination) to finish") } } catch {
            guard error.isUnsupported else { throw error }
            warning("\(destination) cannot be locked (\(error)); make sure no other backup writes into it now")
            lock = nil
        }
        defer { lock?.release() }
        let quarantineStartedAfresh = try requireBackupOrEmpty(to, of: from)
        // An earlier backup is a recovery point: a ledger damaged in what this run would copy
        // leaves it as it was, rather than half brought up to date and marked incomplete.
        if FileIO.exists(to.configuration) && !FileIO.exists(to.incompleteBackup) {
            for (source, copy) in [(from.log, to.log), (from.evidence, to.evidence), (from.quarantine, to.quarantine)] where FileIO.exists(source) {
                if let problem = try LogCopy.damage(in: source, copyingInto: copy) { throw DamagedSource(problem: problem, destination: destination) }
            }
        }
        try FileIO.writeAtomically(to.incompleteBackup, Array("a backup into this directory began and has not finished\n".utf8))
        try syncDirectory(destination)
        if quarantineStartedAfresh {
            let kept = try setAside(to.quarantine)
            try progress("quarantine: the ledger's was started afresh (the old one moved aside); copying it whole, the backup's copy of the old one kept as \(kept)")
        }
        var summary = Summary(destination: destination)
        // Under the source's configuration lock: an `init` meanwhile switched `config.json` to a
        // catalog the copy's listing did not have.
        summary.files = try Ledger.changingConfiguration(of: source, waiting: { try? progress("waiting for an init of \(source) to finish") }, warning: warning) {
            try copyFiles(from: from, to: to)
        }
        try progress("configuration: \(summary.files) files")
        summary.dedupIndex = try DedupIndex.copy(from: from.dedupIndex, to: to.dedupIndex)
        if projections {
            summary.projections = try ProjectionStore.copyCurrent(from: from.projections, to: to.projections)
            try progress("projection database\(summary.projections ? "" : " (none yet)") and dedup index copied")
        } else {
            try progress("dedup index copied; the projection database left out, as asked")
        }
        func copyLog(_ name: String, _ source: String, _ destination: String, upTo bound: LogPosition? = nil) throws -> LogCopy.Summary {
            guard FileIO.exists(source) else { return LogCopy.Summary() }
            return try LogCopy.copy(from: source, to: destination, upTo: bound) { done, segments in
                try progress("\(name): \(done.segmentsCopied + done.segmentsSkipped)/\(segments) segments (\(done.segmentsSkipped) unchanged)")
            }
        }
        do {
            // A log a server creates meanwhile is copied up to its start, as its evidence was not.
            let bound = FileIO.exists(from.log) ? try LogCopy.end(of: from.log) : .start
            summary.evidence = try copyLog("evidence", from.evidence, to.evidence)
            summary.events = try copyLog("log", from.log, to.log, upTo: bound)
            summary.quarantine = try copyLog("quarantine", from.quarantine, to.quarantine)
        } catch LogError.corrupted(let problem) {
            // Damage in the source's active segment: what is copied stays marked incomplete.
            summary.problems.append(problem)
            summary.complete = false
        }
        for (name, source, directory) in [("log", from.log, to.log), ("evidence", from.evidence, to.evidence), ("quarantine", from.quarantine, to.quarantine)]
        where FileIO.exists(directory) {
            var verification = try LogReader(directory: directory).verify()
            if !verification.ok, case let again = try LogCopy.recopyDamaged(verification.problems, from: source, in: directory), !again.isEmpty {
                try progress("\(name): \(again.joined(separator: ", ")) copied again (the copy was damaged, the ledger's is sound)")
                verification = try LogReader(directory: directory).verify()
            }
            summary.records += verification.records
            summary.bytes += verification.bytes
            summary.problems += verification.problems
        }
        // As `verify` does: each log's own check passes for an evidence log cut short at a
        // record's end. Not after copying stopped at damage, which left the rest uncopied.
        if summary.complete { summary.problems += try EvidenceCoverage.problems(directory: destination) }
        try progress("verified: \(summary.records) records, \(summary.problems.count) problems")
        if summary.complete {
            guard unlink(to.incompleteBackup) == 0 else {
                throw LedgerError.storage("cannot remove \(to.incompleteBackup): \(String(cString: strerror(errno)))")
            }
            try syncDirectory(destination)
        }
        let elapsed = ContinuousClock.now - started
        summary.seconds = elapsed.inSeconds
        if summary.complete && summary.verified {
            // The backup stands whether or not it is noted: a note that fails is only said.
            let note = LastBackup(completedAt: WallTime.nowMillis(), to: FileIO.canonicalPath(destination) ?? destination, logEnd: summary.events.end)
            do { try note.save(directory: source) } catch {
                warning("the backup is complete, but not noted as the ledger's last (`stats`, /metrics): \(error)")
            }
        }
        return summary
    }

    /// The names just created or removed in `directory` made durable.
    private static func syncDirectory(_ directory: String) throws(LedgerError) {
        do { try DirectoryPath.sync(directory) } catch { throw LedgerError.storage(error.description) }
    }

    /// Refuses a destination that is neither missing, empty, nor an earlier backup of this ledger
    /// (a data directory whose logs hold nothing this ledger's do not; with no log, one with this
    /// ledger's settings): the copy overwrites its configuration, databases and active segments,
    /// which must not be another ledger's, nor a `config.json` of something else. True when the
    /// copy's quarantine is not an earlier copy of the ledger's, though its logs are: the
    /// ledger's was moved aside (what docs/ingestion.md says to do after a flood) and is to be
    /// copied whole; refused, every later backup failed.
    private static func requireBackupOrEmpty(_ to: DataDirectoryLayout, of from: DataDirectoryLayout) throws -> Bool {
        guard let names = FileIO.names(in: to.root), !names.isEmpty else { return false }
        guard FileIO.exists(to.configuration) || FileIO.exists(to.incompleteBackup) else {
            throw DestinationRefused(destination: to.root, reason: "is not empty and is not a data directory (it has no config.json)")
        }
        // Another app's ledger is refused by its settings, whatever its log holds: an empty log
        // is an earlier copy of every log.
        if FileIO.exists(to.configuration) {
            guard let bytes = FileIO.read(to.configuration) else {
                throw LedgerError.storage("cannot read \(to.configuration): \(String(cString: strerror(errno)))")
            }
            guard let copy = LedgerConfiguration(decoding: bytes) else {
                throw DestinationRefused(destination: to.root, reason: "holds a config.json that is not a ledger's (a simulation's output, other files)")
            }
            let source = try LedgerConfiguration.load(from: from.root)
            // An app id may be given to a ledger later (`init --app-apple-id`), as `init` allows.
            let sameApp = copy.appAppleId == nil || source.appAppleId == nil || copy.appAppleId == source.appAppleId
            guard copy.bundleId == source.bundleId, sameApp else {
                throw DestinationRefused(destination: to.root, reason: "holds the ledger of another app (bundle \(copy.bundleId), app \(copy.appAppleId.map(String.init) ?? "-"))")
            }
        }
        // A ledger served from there would have its files replaced under it.
        if FileIO.exists(to.log) {
            do { try LogWriter.excludingWriter(directory: to.log) {} } catch LogError.locked(_, let holder) {
                throw DestinationRefused(destination: to.root, reason: "is a ledger open for writing by \(holder.map { "process \($0)" } ?? "another process")")
            }
        }
        for (source, copy) in [(from.log, to.log), (from.evidence, to.evidence), (from.quarantine, to.quarantine)] {
            do { try LogCopy.requireEarlierCopy(of: source, in: copy) } catch let mismatch as LogCopy.Mismatch {
                // Bytes that differ from the copy's may be the ledger's damage, not another ledger.
                if FileIO.exists(source), let problem = try LogCopy.damage(in: source, copyingInto: copy) {
                    throw DamagedSource(problem: problem, destination: to.root)
                }
                if source == from.quarantine { return true }
                throw DestinationRefused(destination: to.root, reason: "holds another ledger: \(mismatch.file) is not a copy of this ledger's log")
            }
        }
        return false
    }

    /// Renames a log's copy to the first free `NAME.replaced-N` beside it, and returns that
    /// path: it may hold the only copy left of lines the ledger no longer has.
    private static func setAside(_ directory: String) throws -> String {
        var number = 1
        while FileIO.exists("\(directory).replaced-\(number)") { number += 1 }
        let kept = "\(directory).replaced-\(number)"
        guard rename(directory, kept) == 0 else {
            throw LedgerError.storage("cannot rename \(directory) to \(kept): \(String(cString: strerror(errno)))")
        }
        return kept
    }

    /// Copies the top level's regular files (`config.json`, `catalog-N.json`), `roots/` and
    /// `appstore/` (the App Store Server API's key, settings and where recovery ended; the
    /// directory kept 0700), keeping each file's mode.
    private static func copyFiles(from: DataDirectoryLayout, to: DataDirectoryLayout) throws -> Int {
        var count = 0
        for (directory, target, mode) in [(from.root, to.root, 0o700), (from.roots, to.roots, 0o700), (from.appStore, to.appStore, 0o700)]
        where FileIO.exists(directory) {
            try FileIO.makeDirectory(target, mode: mode_t(mode))
            // The source's own notes: a restored copy has had no backup of its own yet.
            for name in try FileIO.regularFiles(in: directory)
            where !name.hasSuffix(".tmp") && ![from.incompleteBackup, from.lastBackup].contains(directory + "/" + name) {
                try FileIO.copyFile(directory + "/" + name, to: target + "/" + name)
                count += 1
            }
        }
        return count
    }
}
