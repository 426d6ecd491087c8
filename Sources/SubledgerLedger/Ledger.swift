import Dispatch
import SubledgerEvents
import SubledgerJWS
import SubledgerLog
import SubledgerProjections
import Synchronization

/// The ledger facade over a data directory (see `DataDirectoryLayout`): configuration, the
/// write side (`IngestionPipeline`: verification, dedup, evidence, the logs) and the projections
/// that follow it.
public final class Ledger: Sendable {
    public static let eventKind = EventRecord.kind

    public let directory: String
    public let layout: DataDirectoryLayout
    public let configuration: LedgerConfiguration
    let pipeline: IngestionPipeline
    /// Folded in the background after stored batches (on `folding`), and by a read that finds
    /// it behind what was acknowledged; snapshotted to LMDB now and then and on close.
    let projections: Mutex<ProjectionStore>
    /// Runs folds and snapshot writes, one at a time, off the ingestion path.
    let folding = DispatchQueue(label: "subledger.projections")
    let foldScheduled = Atomic(false)
    /// The position of the last event appended, so a read knows whether it must fold first.
    let appendedEnd = Atomic<UInt64>(0)
    /// Events folded, for the projection lag metric without taking the projection's lock.
    let eventsFolded = Atomic(0)
    let lastSnapshot = Mutex((events: 0, at: ContinuousClock.now))
    /// A background snapshot is written after this many events folded, or after ten minutes
    /// with any: it bounds what a restart after a crash folds again.
    let snapshotEveryEvents: Int
    static let snapshotEvery = Duration.seconds(600)
    let catalog: ProductCatalog?

    public init(directory: String, snapshotEveryEvents: Int = 500_000) throws {
        self.directory = directory
        layout = DataDirectoryLayout(directory)
        self.snapshotEveryEvents = snapshotEveryEvents
        configuration = try LedgerConfiguration.load(from: directory)
        let roots = try configuration.loadRoots(from: directory)
        guard !roots.isEmpty else {
            throw LedgerError.configuration("no root certificate configured; run `subledger init --root AppleRootCA-G3.cer`")
        }
        pipeline = try IngestionPipeline(layout: layout, preparer: MessagePreparer(configuration: configuration, verifier: SignedDataVerifier(trustedRoots: roots)))
        let store = try ProjectionStore(directory: layout.projections, logDirectory: layout.log)
        eventsFolded.store(store.projection.eventsFolded, ordering: .relaxed)
        appendedEnd.store(store.projection.lastPosition?.rawValue ?? 0, ordering: .relaxed)
        lastSnapshot.withLock { $0.events = store.projection.eventsFolded }
        projections = Mutex(store)
        catalog = try LedgerReader.loadCatalog(directory: directory, configuration: configuration)
    }

    /// Closes the logs (flushing what is queued), folds what is left and writes a projection
    /// snapshot, so the next open replays only what comes after it.
    public func close() {
        pipeline.close()
        folding.sync {
            projections.withLock { store in
                _ = try? store.catchUp()
                _ = try? store.saveSnapshot()
            }
        }
    }

    /// Runs `body` with the projection as of every event acknowledged so far: if the background
    /// fold has not reached them yet, this read folds them first. Reads never hold up ingestion.
    public func read<T>(_ body: (LedgerReader) throws -> T) throws -> T {
        try projections.withLock { store in
            let appended = appendedEnd.load(ordering: .acquiring)
            if (store.projection.lastPosition?.rawValue ?? 0) < appended {
                try store.catchUp(through: LogPosition(rawValue: appended))
                eventsFolded.store(store.projection.eventsFolded, ordering: .relaxed)
            }
            return try body(LedgerReader(projection: store.projection, directory: directory, configuration: configuration, catalog: catalog))
        }
    }

    /// Events the in-memory projection has folded (the log's event count minus this is its lag).
    public var foldedEvents: Int { eventsFolded.load(ordering: .relaxed) }

    /// Folds the whole log into a fresh snapshot and switches to it.
    public func rebuildProjections() throws -> ProjectionStore.RebuildSummary {
        try folding.sync {
            try projections.withLock { store in
                let summary = try store.rebuild()
                eventsFolded.store(store.projection.eventsFolded, ordering: .relaxed)
                lastSnapshot.withLock { $0 = (store.projection.eventsFolded, .now) }
                return summary
            }
        }
    }

    /// Has the background queue fold what was just appended (once, however many batches asked),
    /// and write a snapshot when enough has changed since the last one. The snapshot is written
    /// from a copy, outside the lock, so reads go on meanwhile.
    private func scheduleFold() {
        guard !foldScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        folding.async { [self] in
            foldScheduled.store(false, ordering: .releasing)
            let appended = LogPosition(rawValue: appendedEnd.load(ordering: .acquiring))
            let due: Projection? = projections.withLock { store in
                _ = try? store.catchUp(through: appended)
                let folded = store.projection.eventsFolded
                eventsFolded.store(folded, ordering: .relaxed)
                let last = lastSnapshot.withLock { $0 }
                let changed = folded - last.events
                guard changed >= snapshotEveryEvents || (changed > 0 && ContinuousClock.now - last.at >= Self.snapshotEvery) else { return nil }
                return store.projection
            }
            guard let due else { return }
            if let path = try? ProjectionStore.writeSnapshot(of: due, in: directory + "/projections").path {
                projections.withLock { $0.adoptSnapshot(at: path) }
                lastSnapshot.withLock { $0 = (due.eventsFolded, .now) }
            }
        }
    }

    /// Verifies, deduplicates and durably appends `lines`; rejected lines are quarantined.
    /// Outcomes come back in input order.
    public func ingest(_ lines: [IngestLine], recordedAt: Int64) throws -> [IngestOutcome] {
        try pipeline.ingest(lines, recordedAt: recordedAt, quarantining: true, onAppended: followAppended)
    }

    /// One message, as the webhook receives them: verified on the caller's thread, then stored
    /// with every message queued meanwhile (group commit).
    public func ingest(_ line: IngestLine, recordedAt: Int64) throws -> IngestOutcome {
        try pipeline.ingest(line, recordedAt: recordedAt, onAppended: followAppended)
    }

    /// Lets the projection follow what the pipeline appended (runs in the pipeline's turn).
    func followAppended(through last: LogPosition) {
        appendedEnd.store(last.rawValue, ordering: .releasing)
        scheduleFold()
    }

    /// The verbatim signed message stored at an evidence position.
    public func signedMessage(at position: UInt64) throws -> [UInt8] {
        try pipeline.evidence.signedMessage(at: position)
    }

    public static func signedMessage(at position: UInt64, evidenceDirectory: String) throws -> [UInt8] {
        try EvidenceStore.signedMessage(at: position, in: evidenceDirectory)
    }

    /// Signed messages stored (header records of the evidence log are not messages).
    public static func messageCount(evidenceDirectory: String) throws -> Int {
        try EvidenceStore.messageCount(in: evidenceDirectory)
    }

    public static func quarantinedCount(directory: String) throws -> Int {
        let quarantine = DataDirectoryLayout(directory).quarantine
        guard FileIO.exists(quarantine) else { return 0 }
        return try Quarantine.entries(in: quarantine).count
    }
}
