import Dispatch
import SubledgerCore
import SubledgerEvents
import SubledgerJWS
import SubledgerLog
import SubledgerProjections
import Synchronization

/// The ledger facade over a data directory (see `DataDirectoryLayout`): configuration, the
/// write side and the projections that follow it.
///
/// Concurrency model (who owns what):
/// - `IngestionPipeline` owns the logs, the evidence store, the dedup index and quarantine.
///   Callers verify on their own threads; storing goes through its `GroupCommit`'s two stages,
///   so input order is storage order. Its doc comment gives its locks and their order.
/// - `ProjectionFollower` owns the projection store behind one lock. Its background queue folds
///   what the pipeline appended. A message ingested alone (the webhook) is acknowledged once
///   that fold has committed it; a batch is acknowledged on return, and a read takes the lock
///   only to fold such acknowledged events the background fold has not reached.
/// - A read's answer runs on the caller's thread with no lock held, through LMDB read
///   transactions (`ProjectionReader`), so it blocks neither ingestion nor other reads.
/// - Opened for a server (`rebuildingInBackground`), a projection database that needs a rebuild
///   is rebuilt on a thread of its own while ingestion appends; reads throw
///   `ProjectionsUnavailable` until it is done, and messages are acknowledged once durable.
///   A dedup index that must be built from the logs is built on a thread of its own too, first;
///   until it is done a webhook message waits for it a few seconds, then is refused with
///   `IngestionUnavailable`, while reads are answered.
/// - Lock order: none is needed. In the pipeline's back stage the follower is only told the last
///   position appended (an atomic store and a queued fold); the follower's lock is never taken
///   while holding a stage, and neither is held while answering.
public final class Ledger: Sendable {
    public static let eventKind = EventRecord.kind

    public let directory: String
    public let layout: DataDirectoryLayout
    public let configuration: LedgerConfiguration
    let catalog: ProductCatalog?
    let pipeline: IngestionPipeline
    let projections: ProjectionFollower
    /// Batches `verify(_:last:)` started, not the last, that `ingest(_:recordedAt:)` has not
    /// stored yet: while there are some, a stored batch waits to be folded with them.
    private let batchesToFoldWith = Atomic(0)
    /// Whether the last message `ingest(_:recordedAt:completion:)` was given could not be
    /// stored (`noteStoring`).
    private let storageFailing = Atomic(false)
    /// Whether the ledger says on stderr that messages are not stored now (`noteStoring`).
    var sayingStorageFails: Bool { storageFailing.load(ordering: .relaxed) }

    /// Opens the data directory: configuration, roots, the logs (recovering a torn tail), the
    /// dedup index and the projection database (caught up with the log).
    ///
    /// - Parameters:
    ///   - snapshotEveryEvents: events folded between flushes of the projection database.
    ///   - logOptions: how both logs cut segments (tests use small ones to cross segment ends).
    ///   - rebuildObserver: told how a rebuild of the projection database on open goes (a new
    ///     schema version, a damaged database).
    ///   - rebuildingInBackground: a projection database that needs a rebuild is rebuilt on a
    ///     thread of its own, started by `startProjectionRebuild()`, and `init` returns at once:
    ///     ingestion works meanwhile, and reads throw `ProjectionsUnavailable` until it is done
    ///     (`whenProjectionsOpen`). What a server wants: 17–27 s at 10 M events without taking the
    ///     App Store's notifications, which it sends again only an hour later. So is a dedup index
    ///     that must be built from the logs (after a system crash, an upgrade that changes its
    ///     format; about 40 s at 10 M messages), before that rebuild: until it is built, a
    ///     message waits a few seconds, then is refused (`ingestionUnavailable`,
    ///     `whenIngestionOpen`), and batches wait.
    public init(
        directory: String, snapshotEveryEvents: Int = 500_000, logOptions: LogOptions = LogOptions(),
        rebuildObserver: RebuildObserver? = nil, rebuildingInBackground: Bool = false
    ) throws {
        self.directory = directory
        let layout = DataDirectoryLayout(directory)
        self.layout = layout
        // Before anything is read: a move while the projection folds on open must show too.
        opened = DirectoryIdentity(directory)
        configuration = try LedgerConfiguration.load(from: directory)
        let roots = try configuration.loadRoots(from: directory)
        guard !roots.isEmpty else {
            throw LedgerError.configuration("no root certificate configured; run `subledger init --root AppleRootCA-G3.cer`")
        }
        let preparer = MessagePreparer(configuration: configuration, verifier: SignedDataVerifier(trustedRoots: roots))
        pipeline = try Self.waitingForRebuildOnOpen(layout, observer: rebuildObserver) {
            try IngestionPipeline(layout: layout, logOptions: logOptions, preparer: preparer, indexInBackground: rebuildingInBackground)
        }
        catalog = try LedgerReader.loadCatalog(directory: directory, configuration: configuration)
        let settings = RollupSettings(smallBusiness: configuration.smallBusiness, catalog: catalog)
        // A new ledger's first open builds an empty database at once: nothing to wait for.
        let inBackground = rebuildingInBackground && pipeline.eventsEndOnOpen > .firstRecord
        // In the background, the rebuild folds the log as far as it was when opened: what is
        // appended during it is caught up with once acknowledged, so nothing not yet durable is read.
        let end = inBackground ? pipeline.eventsEndOnOpen : nil
        let open = { @Sendable (observer: RebuildObserver?, mayRebuild: Bool) throws(ProjectionError) -> sending ProjectionStore in
            try ProjectionStore(
                directory: layout.projections, logDirectory: layout.log, settings: settings, observer: observer, mayRebuild: mayRebuild,
                rebuildingBefore: end)
        }
        do throws(ProjectionError) {
            let store = try open(rebuildObserver, !inBackground)
            // The log's writer lock is this process's: a database a rebuild kept open can go.
            store.retireReplaced()
            projections = ProjectionFollower(store, flushEveryEvents: snapshotEveryEvents)
        } catch {
            guard case .rebuildNeeded(let reason) = error.kind else { throw error }
            let index = pipeline.index
            projections = ProjectionFollower(rebuilding: reason, observer: rebuildObserver, flushEveryEvents: snapshotEveryEvents) {
                // One after the other: at once, the two would share the cores and add their peaks
                // of memory, which the rebuild weighs only as it starts. A server whose build
                // failed stops: rebuilding would only hold its stop.
                try index.waitUntilOpen()
                return try open($0, true)
            }
        }
    }

    /// The data directory as opened.
    private let opened: DirectoryIdentity?

    /// Whether the data directory and its logs are still where they were opened: false once one
    /// was moved or replaced (a restore done with the ledger open), when its path names another
    /// ledger's files, which the logs then refuse to append to (`LogWriter`).
    public var isInPlace: Bool {
        (opened?.isNamed(by: directory) ?? true) && pipeline.isInPlace
    }

    /// Runs `open`, which takes the log's writer lock, waiting first for a command that holds it
    /// to rebuild the projection database on open (`LedgerReader`, which takes turns on
    /// `projections/REBUILD.lock`): a server that systemd restarts meanwhile failed again and again.
    static func waitingForRebuildOnOpen<T>(_ layout: DataDirectoryLayout, observer: RebuildObserver?, _ open: () throws -> T) throws -> T {
        do { return try open() } catch LogError.locked(let directory, let holder) {
            guard FileLock.isHeld(layout.rebuildLock) else { throw LogError.locked(directory: directory, holderPID: holder) }
            observer?(.waitingForAnotherRebuild)
            try FileLock(layout.rebuildLock).release()
            return try open()
        }
    }

    /// Waits for the batch in progress, folds what is left and seals the projection database (so
    /// the next open folds only what comes after it and can check it for damage), then closes
    /// the logs. The log's writer lock is held until the seal: a command that finds it free
    /// seals the database itself, and must not while this process still writes it.
    ///
    /// Moved or replaced while open, it neither folds nor seals: what its paths name now is
    /// another ledger's, whose log would be folded into this projection.
    public func close() {
        let inPlace = isInPlace
        pipeline.close(beforeReleasing: { self.projections.close(catchingUp: inPlace) })
    }

    /// Runs `body` with the projection as of every event acknowledged so far (a read folds first
    /// what the background fold has not reached). `body` runs without any lock held.
    public func read<T>(_ body: (LedgerReader) throws -> T) throws -> T {
        let reader: ProjectionReader
        do { reader = try projections.reader() } catch let unavailable as ProjectionsUnavailable { throw saying(unavailable) }
        return try body(LedgerReader(projections: reader, directory: directory, configuration: configuration, catalog: catalog))
    }

    /// Why reads are refused now, the projection database being rebuilt on open in the background
    /// (or that rebuild having failed); nil when they are answered.
    public var projectionsUnavailable: ProjectionsUnavailable? { projections.unavailable.map(saying) }

    /// `unavailable`, saying whether the dedup index is built first.
    private func saying(_ unavailable: ProjectionsUnavailable) -> ProjectionsUnavailable {
        var unavailable = unavailable
        unavailable.afterIndexBuild = ingestionUnavailable != nil
        return unavailable
    }

    /// Starts the rebuild of the projection database that `init(…, rebuildingInBackground: true)`
    /// found needed, if it did (once). A server calls it once its threads are up, so that the
    /// rebuild's memory estimate is weighed against what the process can still take.
    public func startProjectionRebuild() throws {
        try projections.startRebuild()
    }

    /// Runs `body` once the projection database is open (at once if it is), or with why its
    /// rebuild on open failed: on the thread that rebuilt it, or the caller's.
    public func whenProjectionsOpen(_ body: @escaping @Sendable (Result<Void, ProjectionsUnavailable>) -> Void) {
        projections.whenOpen(body)
    }

    /// Why messages are refused now, the dedup index being built from the logs on open in the
    /// background (or that build having failed); nil when they are stored.
    public var ingestionUnavailable: IngestionUnavailable? { pipeline.index.unavailable }

    /// Runs `body` once the dedup index is open (at once if it is), or with why its build on open
    /// failed, on a global queue.
    public func whenIngestionOpen(_ body: @escaping @Sendable (Result<Void, IngestionUnavailable>) -> Void) {
        pipeline.index.whenOpen(body)
    }

    /// Events the projection database holds (the log's event count minus this is its lag).
    public var foldedEvents: Int { projections.foldedEvents }

    /// Background folds of the projection database that failed since the ledger opened.
    public var projectionFoldFailures: Int { projections.foldFailures }

    /// Folds the whole log into a fresh projection database and switches to it.
    public func rebuildProjections() throws -> ProjectionStore.RebuildSummary {
        try projections.rebuild()
    }

    /// What `subledger rebuild` runs: the rebuild alone. It holds the event log's writer lock
    /// (so nothing appends meanwhile) but opens neither the evidence nor the dedup index, and of
    /// the database in use reads only its counts, when it is sealed, for its memory estimate.
    /// `strategy` says whether it folds in memory or in batches; `observer` is told how it goes.
    public static func rebuildProjections(
        directory: String, strategy: RebuildStrategy = .automatic, observer: RebuildObserver? = nil
    ) throws -> ProjectionStore.RebuildSummary {
        let layout = DataDirectoryLayout(directory)
        let configuration = try LedgerConfiguration.load(from: directory)
        let catalog = try LedgerReader.loadCatalog(directory: directory, configuration: configuration)
        let log = try waitingForRebuildOnOpen(layout, observer: observer) { try LogWriter(directory: layout.log) }
        defer { log.close() }
        return try ProjectionStore.rebuild(
            directory: layout.projections, logDirectory: layout.log,
            settings: RollupSettings(smallBusiness: configuration.smallBusiness, catalog: catalog), strategy: strategy, observer: observer)
    }

    /// Verifies, deduplicates and durably appends `lines`; rejected lines are quarantined.
    /// Outcomes come back in input order; the next read includes what was appended.
    ///
    /// The background fold starts once a batch is stored and no batch but the last is being
    /// verified, or once `ProjectionStore.foldBatchRecords` lines are stored unfolded; not after
    /// each chunk or batch: a fold loads, folds and writes back every timeline it touches, so one
    /// fold of 16384 events touches a customer once where four folds of 4096 touched it up to
    /// four times (profiled on `subledger ingest` of 47,451 notifications: the fold took 21 µs of
    /// CPU a notification folding each batch, 11 µs folding four at once). A read folds what is
    /// still unfolded.
    public func ingest(_ lines: [IngestLine], recordedAt: Int64) throws -> [IngestOutcome] {
        try ingest(verify(lines), recordedAt: recordedAt)
    }

    /// Starts verifying `lines` on all cores (after the batches given here before), so a caller
    /// can hand in the next batch while this one is stored: `ingest(_:recordedAt:)` then stores
    /// it as its chunks come out of verification.
    ///
    /// `last`: no batch follows this one, so what is stored is folded now and each batch still
    /// to be stored once it is, beside the verification of the batches after it: the fold after
    /// the last batch, which no verification runs beside, folds that batch alone.
    public func verify(_ lines: [IngestLine], last: Bool = false) -> BatchVerification {
        if last { projections.foldAppended() } else { batchesToFoldWith.add(1, ordering: .relaxed) }
        return pipeline.verify(lines, last: last)
    }

    /// Deduplicates and durably appends a batch whose verification `verify(_:last:)` started;
    /// rejected lines are quarantined. As `ingest(_ lines:recordedAt:)`; each batch is ingested
    /// once (its outcomes are handed over as they are stored).
    public func ingest(_ batch: BatchVerification, recordedAt: Int64) throws -> [IngestOutcome] {
        let projections = projections
        defer {
            if !batch.last { batchesToFoldWith.subtract(1, ordering: .relaxed) }
            let moreComing = batchesToFoldWith.load(ordering: .relaxed) > 0
            projections.foldAppended(afterBatchOf: batch.lines.count, moreComing: moreComing)
        }
        return try pipeline.ingest(batch, recordedAt: recordedAt, quarantining: true) {
            projections.follow(appendedThrough: $0, visible: true, folding: false)
        }
    }

    /// One message, as the webhook receives them: verified on the caller's thread, stored with
    /// every message queued meanwhile (group commit), and returned once the background fold has
    /// committed it, so reads see it without waiting for a fold. A duplicate also waits, for
    /// the original may still be on its way (and a rejected message, with its group).
    public func ingest(_ line: IngestLine, recordedAt: Int64) throws -> IngestOutcome {
        try waitForCompletion { ingest(line, recordedAt: recordedAt, completion: $0) }.get()
    }

    /// As `ingest(_:recordedAt:)`, but returns once the message is verified and queued:
    /// `completion` gets the outcome once the fold has committed it, with no lock held, on the
    /// thread that committed it (usually the background fold's; keep it short), or at once when
    /// the ledger is closed. The webhook answers this way, so its workers verify the next message
    /// meanwhile.
    ///
    /// While the dedup index is built from the logs, a message waits for it, at most
    /// `heldForIndexBuild` and while those waiting hold less than `heldBytesForIndexBuild`, then
    /// is refused with `IngestionUnavailable`.
    public func ingest(_ line: IngestLine, recordedAt: Int64, completion: @escaping @Sendable (Result<IngestOutcome, any Error>) -> Void) {
        guard let unavailable = ingestionUnavailable else { return store(line, recordedAt: recordedAt, completion: completion) }
        // Before verifying: the index cannot tell it from a repeat yet, and anyone may post.
        guard unavailable.failure == nil else { return completion(.failure(unavailable)) }
        let size = line.bytes.count
        guard heldBytes.add(size, ordering: .relaxed).newValue <= Self.heldBytesForIndexBuild else {
            heldBytes.subtract(size, ordering: .relaxed)
            return completion(.failure(unavailable))
        }
        // Whichever comes first, the build's end or the deadline, answers it.
        let answered = Lock(false)
        let first = { @Sendable [self] () -> Bool in
            guard answered.withLock({ done in defer { done = true }; return !done }) else { return false }
            heldBytes.subtract(size, ordering: .relaxed)
            return true
        }
        let settle = { @Sendable [self] in
            if let unavailable = ingestionUnavailable { completion(.failure(unavailable)) } else { store(line, recordedAt: recordedAt, completion: completion) }
        }
        pipeline.index.whenOpen { _ in if first() { settle() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.heldForIndexBuild) { if first() { settle() } }
    }

    /// How long a webhook message that comes while the dedup index is built from the logs waits
    /// for it: a ledger of a million messages builds it in 3–4 s, and a message refused comes
    /// again from the App Store only hours later.
    static let heldForIndexBuild: DispatchTimeInterval = .seconds(5)
    /// The bytes the waiting messages may hold together: a notification is about 16 KB, and a body
    /// may be 1 MiB, which a thousand connections would otherwise hold for those seconds.
    static let heldBytesForIndexBuild = 64 << 20
    private let heldBytes = Atomic(0)

    /// Verifies, stores and folds one message (`ingest(_:recordedAt:completion:)`).
    private func store(_ line: IngestLine, recordedAt: Int64, completion: @escaping @Sendable (Result<IngestOutcome, any Error>) -> Void) {
        let projections = projections
        pipeline.ingest(
            line, recordedAt: recordedAt, onAppended: { projections.follow(appendedThrough: $0, visible: false) },
            release: { projections.whenFolded($0) },
            completion: { [self] result in
                noteStoring(result)
                completion(result)
            })
    }

    /// Says on stderr when messages stop being stored and when they are stored again, once
    /// each: a full disk showed only as 503s in the access log. A message refused because the
    /// ledger is closing is not a storage failure (it was said to be, with a full disk's advice).
    private func noteStoring(_ result: Result<IngestOutcome, any Error>) {
        switch result {
        case .failure(is LedgerClosed):
            break
        case .failure(let error):
            guard !storageFailing.exchange(true, ordering: .relaxed) else { return }
            Diagnostics.report("a message could not be stored (\(error)); each is refused, the webhook answering 503 so the App Store sends it again, "
                + "until one is stored: if the disk is full, free space and nothing else is needed")
        case .success:
            // A load first: every webhook message passes here, and a failure is rare.
            if storageFailing.load(ordering: .relaxed), storageFailing.exchange(false, ordering: .relaxed) { Diagnostics.report("messages are stored again") }
        }
    }

    /// Unmaps this process's resident pages of the memory-mapped databases (the projection and
    /// the dedup index). They stay in the OS page cache, so answers only pay minor page faults;
    /// what goes down is the process's RSS, which otherwise keeps every page ever read.
    public func releaseMappedPages() throws {
        try projections.releaseMappedPages()
        try pipeline.index.releaseMappedPages()
    }

    /// The bytes in use of the projection database that answers reads (about what a rebuild
    /// needs free beside it); nil while it is rebuilt on open.
    public var projectionBytes: Int? { projections.usedBytes() }

    /// The verbatim signed message stored at an evidence position.
    public func signedMessage(at position: UInt64) throws -> [UInt8] {
        try pipeline.evidence.signedMessage(at: position)
    }

    public static func signedMessage(at position: UInt64, evidenceDirectory: String) throws -> [UInt8] {
        try EvidenceStore.signedMessage(at: position, in: evidenceDirectory)
    }

    /// Webhook bodies that failed verification and were not kept since this ledger opened: the
    /// quarantine held its budget (`Quarantine.webhookBudget`).
    public var quarantineNotKept: Int { pipeline.quarantine.notKept.load(ordering: .relaxed) }

    /// Unresolved quarantine entries, counted from what this ledger's quarantine holds in
    /// memory once it has read them (a server's `/metrics`).
    public func quarantinedCount() throws -> Int { try pipeline.quarantine.unresolvedCount() }

    public static func quarantinedCount(directory: String) throws -> Int {
        guard let quarantine = Quarantine.readable(DataDirectoryLayout(directory).quarantine) else { return 0 }
        return try Quarantine.sayingWhatMendsDamage { try Quarantine.unresolvedCount(in: quarantine) }
    }
}
