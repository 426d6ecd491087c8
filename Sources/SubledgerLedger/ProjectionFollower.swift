import Dispatch
import SubledgerCore
import SubledgerLog
import SubledgerProjections
import Synchronization

/// Keeps the projection database following the event log: folds what ingestion appended on a
/// background queue, flushes now and then, rebuilds and closes.
///
/// Reads see every acknowledged event. An append acknowledged one message at a time (the
/// webhook) waits for the background fold to pass it (`whenFolded`) before it is
/// acknowledged, so reads never wait behind the fold it started; an append acknowledged on
/// return (batch ingestion) marks its end visible, and the next read folds up to it first.
///
/// Concurrency: the store is reachable only inside `store`'s lock, which a fold holds while it
/// folds and a read holds only to fold what is visible but missing; answering runs outside it,
/// through the `ProjectionReader` the read takes away (LMDB read transactions). `progress`
/// (the last checkpoint, its waiters and the reader in use) is a separate, short lock, taken
/// inside `store`'s lock and never the other way round. Waiters resume after `store`'s lock is
/// released (a webhook message's answer is built there). The positions and `eventsFolded` are
/// atomics so that ingestion and metrics take neither lock.
///
/// A server opens it before its database is usable when that needs a rebuild
/// (`init(rebuilding:…)`, then `startRebuild()`): the rebuild runs on a thread of its own while
/// ingestion appends, reads are refused (`ProjectionsUnavailable`) and each appended message is
/// acknowledged once durable, made visible so that the first read after the rebuild folds it.
final class ProjectionFollower: Sendable {
    /// Nil only while the database is rebuilt on open.
    private let store: Mutex<ProjectionStore?>
    private let progress: Lock<Progress>
    /// Runs folds, one at a time, off the ingestion path.
    let folding = DispatchQueue(label: "subledger.projections")
    private let foldScheduled = Atomic(false)
    /// Lines stored by batches since a batch last had the background queue fold.
    private let batchedSinceFold = Atomic(0)
    /// The position of the last event appended.
    private let appendedEnd = Atomic<UInt64>(0)
    /// The position reads must include: the end of what was acknowledged without waiting for
    /// the fold.
    private let visibleEnd = Atomic<UInt64>(0)
    /// Events folded, for the projection lag metric without taking the lock.
    private let eventsFolded = Atomic(0)
    /// Events folded at the last flush, and when it was.
    private let lastFlush = Mutex((events: 0, at: ContinuousClock.now))
    /// Commits do not flush; a flush follows this many events folded, or ten minutes with any,
    /// bounding what a system crash makes a restart fold again.
    private let flushEveryEvents: Int
    static let flushEvery = Duration.seconds(600)
    /// Background folds that failed (a full disk), for `/metrics`.
    private let failures = Atomic(0)
    /// Whether the last background fold failed: a failure is said once while it lasts, not at
    /// every group the webhook stores, whatever each one's message.
    private let failing = Atomic(false)
    /// How long after a failed fold it is tried again, with nothing new appended: the failure
    /// went unsaid and the fold stood still, however much room the disk then had, until a read came.
    private let retryAfter: Duration
    /// A retry is scheduled: one at a time, or each failure of a retry scheduled another.
    private let retryScheduled = Atomic(false)
    private let closed = Atomic(false)
    /// What rebuilds the database on open, until `startRebuild` runs it.
    private let pendingRebuild = Mutex<(@Sendable () -> Void)?>(nil)
    /// The thread rebuilding the database on open, until `close` waits for it.
    private let opening = Mutex<PosixThread?>(nil)
    /// The last report of the rebuild on open, for what a refused read says.
    private let openingProgress = Mutex<RebuildProgress?>(nil)

    /// What runs when the checkpoint reaches a position (`whenFolded`), once no lock is held.
    typealias Waiter = @Sendable () -> Void

    struct Progress {
        /// The checkpoint of the database as last committed.
        var checkpoint: UInt64
        /// Waiters up to here have been released though a fold failed short of it: one that
        /// comes later for a position already appended must not wait for a fold that failed.
        var released: UInt64 = 0
        var waiters: [(position: UInt64, resume: Waiter)] = []
        /// Nil while the database is rebuilt on open.
        var reader: ProjectionReader?
        /// Why reads are refused: the database is rebuilt on open, or that rebuild failed.
        var unavailable: ProjectionsUnavailable?
        /// Told once the rebuild on open is done, or has failed.
        var whenOpen: [@Sendable (Result<Void, ProjectionsUnavailable>) -> Void] = []
    }

    init(_ store: sending ProjectionStore, flushEveryEvents: Int, retryAfter: Duration = .seconds(5)) {
        self.retryAfter = retryAfter
        let checkpoint = store.lastPosition?.rawValue ?? 0
        eventsFolded.store(store.eventsFolded, ordering: .relaxed)
        appendedEnd.store(checkpoint, ordering: .relaxed)
        visibleEnd.store(checkpoint, ordering: .relaxed)
        lastFlush.withLock { $0.events = store.eventsFolded }
        progress = Lock(Progress(checkpoint: checkpoint, reader: store.reader))
        self.store = Mutex(store)
        self.flushEveryEvents = flushEveryEvents
    }

    /// A follower whose database `open` rebuilds (it needs a rebuild: see
    /// `ProjectionStore.RebuildReason`) on a thread of its own once `startRebuild()` is called,
    /// told to `observer` as it goes. Until it is done, reads throw `ProjectionsUnavailable` and
    /// appends are acknowledged once durable; then it folds what was appended meanwhile.
    init(
        rebuilding reason: ProjectionStore.RebuildReason, observer: RebuildObserver?, flushEveryEvents: Int, retryAfter: Duration = .seconds(5),
        _ open: @escaping @Sendable (@escaping RebuildObserver) throws -> sending ProjectionStore
    ) {
        self.retryAfter = retryAfter
        self.flushEveryEvents = flushEveryEvents
        store = Mutex(nil)
        progress = Lock(Progress(checkpoint: 0, unavailable: ProjectionsUnavailable(reason: reason)))
        pendingRebuild.withLock {
            $0 = { [self] in
                let observing: RebuildObserver = { [self] report in
                    openingProgress.withLock { $0 = report }
                    observer?(report)
                }
                opened(rebuilding: reason) { try open(observing) }
            }
        }
    }

    /// Starts the rebuild on open `init(rebuilding:…)` prepared (once; nothing without one). A
    /// server calls it once its own threads are up: the rebuild sizes itself by the memory the
    /// process can still take (`MemoryHeadroom`), which they would otherwise take from it.
    func startRebuild() throws {
        guard let rebuild = pendingRebuild.withLock({ $0.take() }) else { return }
        let thread = try PosixThread.spawn(name: "open-rebuild", rebuild)
        opening.withLock { $0 = thread }
    }

    /// Opens the database rebuilt on open and puts it in use, folding what was appended meanwhile,
    /// or, when the rebuild fails, keeps reads refused saying why; then tells whoever waits for it.
    /// Reads are refused before they would take the store's lock, which this holds throughout.
    private func opened(rebuilding reason: ProjectionStore.RebuildReason, _ open: () throws -> sending ProjectionStore) {
        var result: Result<Void, ProjectionsUnavailable> = .success(())
        let resumed = store.withLock { slot -> [Waiter] in
            do {
                let built = try open()
                // The rebuild flushed what it wrote; the catch-up below did not.
                lastFlush.withLock { $0 = (built.eventsFolded, .now) }
                // What was appended and acknowledged meanwhile: the rebuild read the log only as
                // far as it was when opened. Should this fail, the fold after the switch retries it.
                _ = try? built.catchUp(through: LogPosition(rawValue: appendedEnd.load(ordering: .acquiring)))
                slot = built
                return committed(built)
            } catch {
                let failed = ProjectionsUnavailable(reason: reason, failure: error)
                result = .failure(failed)
                progress.withLock { $0.unavailable = failed }
                return []
            }
        }
        resume(resumed)
        let told = progress.withLock { progress in
            defer { progress.whenOpen = [] }
            return progress.whenOpen
        }
        for tell in told { tell(result) }
        if case .success = result { foldAppended() }
    }

    /// Runs `body` once the database is open (at once if it is), or with why its rebuild on
    /// open failed; on the rebuilding thread or the caller's.
    func whenOpen(_ body: @escaping @Sendable (Result<Void, ProjectionsUnavailable>) -> Void) {
        let now: Result<Void, ProjectionsUnavailable>? = progress.withLock { progress in
            switch progress.unavailable {
            case nil: return .success(())
            case let failed? where failed.failure != nil: return .failure(failed)
            case _?:
                progress.whenOpen.append(body)
                return nil
            }
        }
        if let now { body(now) }
    }

    /// Why reads are refused, with how far the rebuild on open has come; nil once they are answered.
    var unavailable: ProjectionsUnavailable? {
        guard var unavailable = progress.withLock({ $0.unavailable }) else { return nil }
        unavailable.progress = openingProgress.withLock { $0 }
        return unavailable
    }

    /// What finding no store is refused with: the store is nil only while reads are refused.
    private var refusal: ProjectionsUnavailable {
        unavailable ?? ProjectionsUnavailable(reason: .missing)
    }

    /// Events the projection database holds (the log's event count minus this is its lag).
    var foldedEvents: Int { eventsFolded.load(ordering: .relaxed) }

    /// Background folds that failed since this process opened the ledger.
    var foldFailures: Int { failures.load(ordering: .relaxed) }

    /// Notes what ingestion appended and, when `folding`, has the background queue fold it (once,
    /// however many batches ask). `visible`: the caller acknowledges it on return, so reads must
    /// include it from now on. Called in the pipeline's back stage, one group at a time, so
    /// positions only grow.
    func follow(appendedThrough last: LogPosition, visible: Bool, folding: Bool = true) {
        appendedEnd.store(last.rawValue, ordering: .releasing)
        if visible { visibleEnd.max(last.rawValue, ordering: .releasing) }
        if folding { foldAppended() }
    }

    /// After a batch of `lines` is stored: has the background queue fold everything appended
    /// so far unless `moreComing` (another batch is on its way) and fewer than
    /// `ProjectionStore.foldBatchRecords` lines were stored since the last fold.
    func foldAppended(afterBatchOf lines: Int, moreComing: Bool) {
        let unfolded = batchedSinceFold.add(lines, ordering: .relaxed).newValue
        guard !moreComing || unfolded >= ProjectionStore.foldBatchRecords else { return }
        batchedSinceFold.store(0, ordering: .relaxed)
        foldAppended()
    }

    /// Has the background queue fold everything appended so far (once, however many ask).
    func foldAppended() {
        guard !foldScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        folding.async { [self] in
            foldScheduled.store(false, ordering: .releasing)
            // After `close`, which sealed the database: a retry scheduled before it lands here.
            guard !closed.load(ordering: .acquiring) else { return }
            let appended = appendedEnd.load(ordering: .acquiring)
            var failure: (any Error)?
            let outcome = store.withLock { store -> (resumed: [Waiter], flushDue: Bool, folded: Int)? in
                // The rebuild on open folds what is appended meanwhile once it is done.
                guard let store else { return nil }
                do {
                    try store.catchUp(through: LogPosition(rawValue: appended))
                } catch {
                    // The waiters' events are durable: they are acknowledged anyway, and the
                    // next read folds them itself and reports what fails.
                    visibleEnd.max(appended, ordering: .releasing)
                    failure = error
                    return (committed(store, releasingThrough: appended), false, store.eventsFolded)
                }
                let last = lastFlush.withLock { $0 }
                let changed = store.eventsFolded - last.events
                return (committed(store), changed >= flushEveryEvents || (changed > 0 && ContinuousClock.now - last.at >= Self.flushEvery), store.eventsFolded)
            }
            guard let (resumed, flushDue, folded) = outcome else { return }
            resume(resumed)
            // Said with no lock held: a stalled standard error must not hold reads up.
            if let failure {
                failed(failure)
            } else if failing.exchange(false, ordering: .relaxed) {
                Diagnostics.report("the projection database folds again: \(folded) events folded")
            }
            guard flushDue else { return }
            store.withLock { store in
                if let store, (try? store.sync()) != nil { lastFlush.withLock { $0 = (store.eventsFolded, .now) } }
            }
        }
    }

    /// Counts a failed background fold, says it once while it lasts, and tries again later.
    private func failed(_ error: any Error) {
        failures.add(1, ordering: .relaxed)
        if !failing.exchange(true, ordering: .relaxed) {
            Diagnostics.report("the projection database could not fold the events just stored (\(error)): they are stored and acknowledged, "
                               + "reads fold what they need, and the fold is tried again every \(retryAfter)")
        }
        guard !retryScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        folding.asyncAfter(deadline: .now() + .milliseconds(Int(retryAfter / .milliseconds(1)))) { [weak self] in
            self?.retryScheduled.store(false, ordering: .releasing)
            self?.foldAppended()
        }
    }

    /// Runs `body` once the background fold has committed every event appended so far (at once
    /// if it has): what the webhook waits for before acknowledging a group of messages. `body`
    /// runs with no lock held, on the thread that committed the fold (the background queue, a
    /// read that caught up, `close`), or at once on the caller's: keep it short, for the next
    /// fold waits for it. While the database is rebuilt on open, `body` runs at once and what was
    /// appended becomes visible: the first read after the rebuild folds it.
    func whenFolded(_ body: @escaping @Sendable () -> Void) {
        let target = appendedEnd.load(ordering: .acquiring)
        let folded = progress.withLock { progress in
            if progress.unavailable != nil {
                visibleEnd.max(target, ordering: .releasing)
                return true
            }
            guard max(progress.checkpoint, progress.released) < target else { return true }
            progress.waiters.append((target, body))
            return false
        }
        if folded { body() }
    }

    /// A reader as of every acknowledged event. It takes the store's lock (and so waits for a
    /// fold in progress) only when an acknowledged event is not folded yet.
    /// While the database is rebuilt on open, it throws `ProjectionsUnavailable`.
    func reader() throws -> ProjectionReader {
        let visible = visibleEnd.load(ordering: .acquiring)
        let (current, refused) = progress.withLock { ($0.checkpoint >= visible ? $0.reader : nil, $0.unavailable != nil) }
        if refused, let unavailable { throw unavailable }
        if let current { return current }
        let (reader, resumed) = try store.withLock { store in
            guard let store else { throw refusal }
            guard (store.lastPosition?.rawValue ?? 0) < visible else { return (store.reader, [Waiter]()) }
            try store.catchUp(through: LogPosition(rawValue: visible))
            return (store.reader, committed(store))
        }
        resume(resumed)
        return reader
    }

    /// Unmaps the resident pages of the database in use; they stay in the page cache.
    func releaseMappedPages() throws {
        try progress.withLock { $0.reader }?.releaseMappedPages()
    }

    /// The bytes in use of the database that answers reads; nil while there is none (a rebuild
    /// on open).
    func usedBytes() -> Int? {
        try? progress.withLock { $0.reader }?.usedBytes()
    }

    /// Publishes the store's new checkpoint (and reader) and returns the callers waiting for it,
    /// or for `releasingThrough` when a fold failed, for `resume` once the store's lock is
    /// released. Called with the store's lock held.
    private func committed(_ store: borrowing ProjectionStore, releasingThrough failed: UInt64 = 0) -> [Waiter] {
        eventsFolded.store(store.eventsFolded, ordering: .relaxed)
        let checkpoint = store.lastPosition?.rawValue ?? 0
        let released = max(checkpoint, failed)
        let reader = store.reader
        let resumed = progress.withLock { progress in
            progress.checkpoint = checkpoint
            progress.released = max(progress.released, released)
            progress.reader = reader
            progress.unavailable = nil
            let due = progress.waiters.filter { $0.position <= released }.map(\.resume)
            progress.waiters.removeAll { $0.position <= released }
            return due
        }
        return resumed
    }

    private func resume(_ waiters: [Waiter]) {
        for resume in waiters { resume() }
    }

    /// Folds the whole log into a fresh database and switches to it.
    func rebuild() throws -> ProjectionStore.RebuildSummary {
        let (summary, resumed) = try folding.sync {
            try store.withLock { store in
                guard let store else { throw refusal }
                let replaced = store.snapshotPath
                let summary = try store.rebuild()
                let resumed = committed(store)
                // The reader published until now held the database replaced.
                store.retire(replaced: replaced)
                lastFlush.withLock { $0 = (store.eventsFolded, .now) }
                return (summary, resumed)
            }
        }
        resume(resumed)
        return summary
    }

    /// Folds what is left and seals the database, so the next open folds only what comes after
    /// it and can check it for damage. Call when nothing appends any more. Without `catchingUp`
    /// it only lets waiters go (the data directory was moved or replaced: its path names another
    /// ledger's log and files). A rebuild on open still running is waited for first, except
    /// then: its paths, too, name another ledger's files, and its process is about to end.
    func close(catchingUp: Bool = true) {
        closed.store(true, ordering: .releasing)
        pendingRebuild.withLock { $0 = nil }
        if let rebuilding = opening.withLock({ $0.take() }) {
            let running = progress.withLock { $0.unavailable.map { $0.failure == nil } ?? false }
            guard catchingUp || !running else {
                rebuilding.detach()
                return resume(progress.withLock { progress in
                    defer { progress.waiters.removeAll() }
                    return progress.waiters.map(\.resume)
                })
            }
            rebuilding.join()
        }
        let resumed = folding.sync {
            store.withLock { store in
                guard let store else { return [Waiter]() }
                if catchingUp { _ = try? store.catchUp() }
                let resumed = committed(store, releasingThrough: appendedEnd.load(ordering: .acquiring))
                if catchingUp { try? store.seal() }
                return resumed
            }
        }
        resume(resumed)
    }
}
