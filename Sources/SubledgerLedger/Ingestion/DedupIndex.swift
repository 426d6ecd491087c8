#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SubledgerCore
import SubledgerCrypto
import SubledgerLMDB
import SubledgerLog
import Synchronization

/// The dedup keys of stored messages and the evidence header table, kept in an LMDB environment
/// (`dedup/`) so that opening a ledger reads only what the logs gained since the index's last
/// commit, not their whole history.
///
/// The logs are the truth and the index is derived from them. A batch's keys are put only once
/// its events are durable, in one transaction with the checkpoint (the last event and evidence
/// record covered): a message is known only once its event is, and evidence written just before
/// a crash, with no event, stays unknown. Opening reads the logs after the checkpoint to catch up,
/// and builds the index from the whole logs when it is missing, written for other logs, torn by a
/// system crash or unreadable (`DedupIndex+Recovery.swift`): for a server, on a thread of its own
/// (about 40 s at 10 M messages), so that it answers reads meanwhile.
///
/// Commits don't flush (`MDB_NOSYNC`): after a process crash the page cache still holds them; a
/// system crash while the index is open can tear it, which the `session` mark reveals at the next
/// open (the index is then rebuilt).
///
/// Databases: `keys`: the dedup key (`Key`) → the position of the message's event (u64
/// big-endian), what a duplicate is answered with (a notification's signed transaction is a key
/// of its own, so a bare copy of it is a duplicate); `headers`: evidence
/// position (u64 big-endian) → header text; `meta`: `format` (u32), `checkpoint` (`Checkpoint`),
/// `session` (the boot ID of the machine that has the index open; absent once closed cleanly).
final class DedupIndex: Sendable {
    /// 3: a notification's signed transaction is a key too; 2: keys hold their event's position
    /// (1 held nothing). An index of another format is rebuilt.
    static let format: UInt32 = 3

    let path: String
    /// Taken briefly by the pipeline's front stage (lookups) and back stage (writes), see
    /// `IngestionPipeline`.
    private let state: Mutex<State>
    /// Entered while the index is built in the background, left once it is open or its build
    /// failed.
    private let building = DispatchGroup()

    struct State {
        /// Nil while the index is built in the background and once closed: closing releases the
        /// environment, so that this process can open the directory again.
        var storage: Storage?
        /// What opening read, and why it built the index from the logs if it did.
        var recovery: Recovery
        /// Set while the index is built in the background, and when that build failed.
        var unavailable: IngestionUnavailable?
        /// Closed without waiting for a build in the background, which then drops what it built.
        var closed = false
        /// A batch whose commit failed, kept until one succeeds: its keys stay known meanwhile,
        /// so a failed index write never lets a stored message in twice.
        var unsaved = Batch()
    }

    /// The environment and its databases.
    struct Storage: Sendable {
        let environment: LMDBEnvironment
        let keys: LMDBDatabase
        let headers: LMDBDatabase
        let meta: LMDBDatabase
    }

    /// The last records an index commit covers: the last event, with its payload (which tells this
    /// directory's log from another's), and the last evidence record.
    struct Checkpoint: Equatable {
        var event: LogPosition
        var eventPayload: [UInt8]
        var evidence: LogPosition
    }

    /// The index's key for a dedup key: its UTF-8, or for a key too long for LMDB (511 bytes; App
    /// Store identifiers never come close) 0xFF and its SHA-256 (no UTF-8 text starts with 0xFF).
    /// Not always hashed: a hash per lookup costs more than the lookup. Hashed for tables in one
    /// pass over its bytes: an array of bytes is hashed a byte at a time, which took a tenth of an
    /// index rebuilt from the logs.
    struct Key: Hashable, Sendable {
        let bytes: [UInt8]

        init(_ key: String) {
            let bytes = Array(key.utf8)
            self.bytes = bytes.count <= 480 ? bytes : [0xFF] + SHA256.hash(bytes)
        }

        func hash(into hasher: inout Hasher) {
            bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
        }
    }

    /// Keys and headers to put, and the checkpoint they bring the index to.
    struct Batch {
        /// Index key → its event's position.
        var keys: [Key: UInt64] = [:]
        var headers: [(position: UInt64, bytes: [UInt8])] = []
        var checkpoint: Checkpoint?

        /// A key keeps the position of the first message it names: a notification's signed
        /// transaction may have been stored bare before, and a repeat answers with its first copy.
        mutating func add(_ key: Key, event: UInt64) {
            // One hash where the key is new, as nearly every one is.
            if let first = keys.updateValue(event, forKey: key) { keys[key] = first }
        }
    }

    /// Opens the index at `path` for the logs of one data directory, caught up with them, and
    /// gives `opened` the evidence log's header table as the index holds it, before the index
    /// answers. One that must be built from the whole logs is built on a thread of its own when
    /// `inBackground`: until it is open, `positions(of:)` throws `IngestionUnavailable`.
    init(
        path: String, eventLog: LogReader, evidenceLog: LogReader, buildingInBackground inBackground: Bool = false,
        opened: @escaping @Sendable ([HeaderKey: UInt64]) -> Void = { _ in }
    ) throws {
        self.path = path
        let (storage, recovery): (Storage, Recovery)
        switch try Self.open(path: path, eventLog: eventLog, evidenceLog: evidenceLog) {
        case .caughtUp(let caughtUp, let read):
            (storage, recovery) = (caughtUp, read)
        case .rebuild(let reason) where !inBackground:
            (storage, recovery) = try Self.build(path: path, because: reason, eventLog: eventLog, evidenceLog: evidenceLog)
        case .rebuild(let reason):
            state = Mutex(State(recovery: Recovery(rebuilt: reason), unavailable: IngestionUnavailable(reason: reason.description)))
            try buildInBackground(because: reason, eventLog: eventLog, evidenceLog: evidenceLog, opened: opened)
            return
        }
        opened(try storage.headerTable())
        state = Mutex(State(storage: storage, recovery: recovery))
    }

    /// Builds the index from the whole logs on the thread `dedup-build`, then opens it, unless it
    /// was closed meanwhile; or keeps why the build failed.
    private func buildInBackground(
        because reason: RebuildReason, eventLog: LogReader, evidenceLog: LogReader, opened: @escaping @Sendable ([HeaderKey: UInt64]) -> Void
    ) throws {
        building.enter()
        do {
            try PosixThread.spawn(name: "dedup-build") { [self] in
                let built = Result {
                    let (storage, recovery) = try Self.build(path: path, because: reason, eventLog: eventLog, evidenceLog: evidenceLog)
                    opened(try storage.headerTable())
                    return (storage, recovery)
                }
                state.withLock { state in
                    switch built {
                    case .success(let (storage, recovery)) where !state.closed:
                        (state.storage, state.recovery, state.unavailable) = (storage, recovery, nil)
                    case .success:
                        break
                    case .failure(let error):
                        state.unavailable?.failure = error
                    }
                }
                building.leave()
            }.detach()
        } catch {
            building.leave()
            throw LedgerError.storage("cannot build the dedup index \(path) from the logs: \(error)")
        }
    }

    /// What opening read, and why it built the index from the logs if it did (so far, while it
    /// builds).
    var recovery: Recovery { state.withLock { $0.recovery } }

    /// Why messages are refused now: the index is being built in the background, or that build
    /// failed; nil once it is open.
    var unavailable: IngestionUnavailable? { state.withLock { $0.unavailable } }

    /// Waits until the index is built, if it is built in the background.
    func waitForBuild() {
        building.wait()
    }

    /// Waits until the index is open; throws why its build failed.
    func waitUntilOpen() throws {
        waitForBuild()
        if let failed = unavailable { throw failed }
    }

    /// Runs `body` on a global queue once the index is open or its build failed (at once when it
    /// is built in the foreground).
    func whenOpen(_ body: @escaping @Sendable (Result<Void, IngestionUnavailable>) -> Void) {
        building.notify(queue: .global()) { [self] in
            body(unavailable.map { .failure($0) } ?? .success(()))
        }
    }

    /// The event position of each message stored before; nil for one not stored (or no message).
    func positions(of candidates: [String?]) throws -> [LogPosition?] {
        let (storage, pending) = try state.withLock { state in
            if let unavailable = state.unavailable { throw unavailable }
            guard let storage = state.storage else { throw LedgerClosed() }
            return (storage, state.unsaved.keys)
        }
        do {
            return try storage.environment.read { txn in
                try candidates.map { candidate in
                    guard let candidate else { return nil }
                    // The index first: a key keeps its first message (`Batch.add`), which a batch
                    // not yet written may name again.
                    let key = Key(candidate)
                    if let position = try txn.withValue(forKey: key.bytes, in: storage.keys, { LogPosition(rawValue: Self.uint64($0)) }) { return position }
                    return pending[key].map(LogPosition.init(rawValue:))
                }
            }
        } catch let error as LMDBError where error.isSnapshotDamaged {
            // LMDB's own advice names the projection's snapshot, which a rebuild replaces; this
            // index is made again from the logs instead, when it is missing.
            throw LedgerError.storage("the dedup index \(path) is damaged (\(error.kind)); stop whatever has the ledger open, remove \(path) (it is made again from the logs when the ledger next opens) and retry")
        }
    }

    /// Indexes a batch whose events are durable. Never throws: the events are stored, so their
    /// keys must count as known whatever happens here; a failed commit is retried with the next
    /// batch and, failing that, the next open catches up from the logs.
    func record(keys: [(key: String, event: LogPosition)], headers: [(position: UInt64, bytes: [UInt8])], through checkpoint: Checkpoint) {
        let (storage, batch) = state.withLock { state in
            for (key, event) in keys { state.unsaved.add(Key(key), event: event.rawValue) }
            state.unsaved.headers += headers
            state.unsaved.checkpoint = checkpoint
            return (state.storage, state.unsaved)
        }
        guard let storage else { return }
        do {
            try storage.environment.write { txn in try storage.put(batch, in: txn) }
            state.withLock { $0.unsaved = Batch() }
        } catch {
            Diagnostics.report("the dedup index \(path) could not be written (\(error)); its keys are kept in memory until a write succeeds, and the next open catches up from the logs")
        }
    }

    /// Unmaps the index's resident pages (they stay in the page cache); nothing once closed.
    func releaseMappedPages() throws {
        try state.withLock { $0.storage }?.environment.releaseMappedPages()
    }

    /// Flushes the index, clears the session mark (a closed index is trusted at the next open
    /// whatever happens to the machine meanwhile) and releases the environment. Not `sealing`
    /// when its data directory was moved or replaced while open: the seal is written by path,
    /// and would describe this index in the directory now there, a restored copy. Waits for a
    /// build in the background when `sealing`, so that its work is kept; otherwise the build ends
    /// alone and does not open what it built.
    func close(sealing: Bool = true) {
        if sealing { waitForBuild() }
        guard let storage = state.withLock({ state in defer { (state.storage, state.closed) = (nil, true) }; return state.storage }) else { return }
        do {
            try storage.environment.sync()
            try storage.environment.write { txn in _ = try txn.delete(key: Storage.sessionKey, in: storage.meta) }
            try storage.environment.sync()
            guard sealing else { return }
            try LMDBFileSeal.seal(path, usedBytes: try storage.environment.usedBytes())
        } catch {
            Diagnostics.report("the dedup index \(path) could not be closed cleanly (\(error)); the next open rebuilds it if the machine restarts first")
        }
    }

    static func bigEndian(_ value: UInt64) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }

    static func uint64(_ bytes: some Sequence<UInt8>) -> UInt64 {
        bytes.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }
}
