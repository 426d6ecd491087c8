import Dispatch
import SubledgerEvents
import SubledgerJWS
import SubledgerLog
import SubledgerProjections
import Synchronization

/// The ledger facade over a data directory: `log/` (events), `evidence/` (signed messages),
/// `quarantine/` (rejected input), `config.json` and the root certificates.
///
/// Ingestion verifies lines in parallel, then stores them in input order: evidence first, then
/// the events that reference it, each batch durable before any outcome is reported. Mutable
/// state (the dedup index and header table) is guarded by `state`; the logs have their own
/// locking; hence `@unchecked Sendable`.
public final class Ledger: @unchecked Sendable {
    public static let eventKind = EventRecord.kind

    public let directory: String
    public let configuration: LedgerConfiguration
    let events: LogWriter
    let evidence: LogWriter
    let quarantine: Quarantine
    let preparer: MessagePreparer
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

    struct State {
        /// Dedup keys of messages with an event, and the header table of the evidence log.
        var known: Set<String> = []
        var headers: [HeaderKey: UInt64] = [:]
    }

    let state = Mutex(State())
    /// One ingestion batch at a time, so input order is storage order. A semaphore rather than a
    /// `Mutex`: webhook threads wait here through a whole group commit (an fdatasync), and
    /// `Mutex` spins before it sleeps, which took 8% of the CPU that verification needs (profiled
    /// under wrk).
    let ingestion = DispatchSemaphore(value: 1)

    /// Runs `body` holding `ingestion`.
    func ingesting<T>(_ body: () throws -> T) rethrows -> T {
        ingestion.wait()
        defer { ingestion.signal() }
        return try body()
    }
    /// Webhook messages verified and waiting for the next group commit.
    let waiting = Mutex<[StoreSlot]>([])

    public init(directory: String, snapshotEveryEvents: Int = 500_000) throws {
        self.directory = directory
        self.snapshotEveryEvents = snapshotEveryEvents
        configuration = try LedgerConfiguration.load(from: directory)
        let roots = try configuration.loadRoots(from: directory)
        guard !roots.isEmpty else {
            throw LedgerError.configuration("no root certificate configured; run `subledger init --root AppleRootCA-G3.cer`")
        }
        preparer = MessagePreparer(configuration: configuration, verifier: SignedDataVerifier(trustedRoots: roots))
        events = try LogWriter(directory: directory + "/log")
        evidence = try LogWriter(directory: directory + "/evidence")
        quarantine = try Quarantine(directory: directory + "/quarantine")
        catalog = try LedgerReader.loadCatalog(directory: directory, configuration: configuration)
        let store = try ProjectionStore(
            directory: directory + "/projections", logDirectory: directory + "/log",
            settings: RollupSettings(smallBusiness: configuration.smallBusiness, catalog: catalog))
        eventsFolded.store(store.eventsFolded, ordering: .relaxed)
        appendedEnd.store(store.lastPosition?.rawValue ?? 0, ordering: .relaxed)
        lastSnapshot.withLock { $0.events = store.eventsFolded }
        projections = Mutex(store)
        try loadIndexes()
    }

    /// Closes the logs (flushing what is queued), folds what is left and seals the projection
    /// database, so the next open folds only what comes after it and can check it for damage.
    public func close() {
        events.close()
        evidence.close()
        quarantine.close()
        folding.sync {
            projections.withLock { store in
                _ = try? store.catchUp()
                try? store.seal()
            }
        }
    }

    /// Runs `body` with the projection as of every event acknowledged so far: if the background
    /// fold has not reached them yet, this read folds them first. `body` runs without any lock
    /// (it reads the projection database through LMDB read transactions), so a long report or
    /// page holds up neither ingestion nor other reads.
    public func read<T>(_ body: (LedgerReader) throws -> T) throws -> T {
        let reader = try projections.withLock { store in
            let appended = appendedEnd.load(ordering: .acquiring)
            if (store.lastPosition?.rawValue ?? 0) < appended {
                try store.catchUp(through: LogPosition(rawValue: appended))
                eventsFolded.store(store.eventsFolded, ordering: .relaxed)
            }
            return store.reader
        }
        return try body(LedgerReader(projections: reader, directory: directory, configuration: configuration, catalog: catalog))
    }

    /// Events the in-memory projection has folded (the log's event count minus this is its lag).
    public var foldedEvents: Int { eventsFolded.load(ordering: .relaxed) }

    /// Folds the whole log into a fresh snapshot and switches to it.
    public func rebuildProjections() throws -> ProjectionStore.RebuildSummary {
        try folding.sync {
            try projections.withLock { store in
                let summary = try store.rebuild()
                eventsFolded.store(store.eventsFolded, ordering: .relaxed)
                lastSnapshot.withLock { $0 = (store.eventsFolded, .now) }
                return summary
            }
        }
    }

    /// Has the background queue fold what was just appended (once, however many batches asked),
    /// and flush the projection database when enough has changed since the last flush: commits
    /// do not flush, so this bounds what a system crash makes a restart fold again.
    private func scheduleFold() {
        guard !foldScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        folding.async { [self] in
            foldScheduled.store(false, ordering: .releasing)
            let appended = LogPosition(rawValue: appendedEnd.load(ordering: .acquiring))
            projections.withLock { store in
                _ = try? store.catchUp(through: appended)
                let folded = store.eventsFolded
                eventsFolded.store(folded, ordering: .relaxed)
                let last = lastSnapshot.withLock { $0 }
                let changed = folded - last.events
                guard changed >= snapshotEveryEvents || (changed > 0 && ContinuousClock.now - last.at >= Self.snapshotEvery) else { return }
                if (try? store.sync()) != nil { lastSnapshot.withLock { $0 = (folded, .now) } }
            }
        }
    }

    /// Rebuilds the dedup index and header table: a message counts as known only when an event
    /// references its evidence (evidence written just before a crash, with no event, is not).
    private func loadIndexes() throws {
        var keysByPosition: [UInt64: String] = [:]
        var headers: [HeaderKey: UInt64] = [:]
        try LogReader(directory: directory + "/evidence").scan { entry in
            if entry.kind == Evidence.headerKind {
                headers[HeaderKey(Array(entry.payload))] = entry.position.rawValue
            } else if entry.kind == Evidence.messageKind, let key = Evidence.key(of: entry.payload) {
                keysByPosition[entry.position.rawValue] = key
            }
            return true
        }
        var known: Set<String> = []
        try LogReader(directory: directory + "/log").scan { entry in
            guard entry.kind == Self.eventKind, entry.payload.count > 8 else { return true }
            let event = try EventView(UnsafeRawBufferPointer(rebasing: entry.payload[8...]))
            if let key = keysByPosition[event.evidence.position] { known.insert(key) }
            return true
        }
        state.withLock {
            $0.known = known
            $0.headers = headers
        }
    }

    /// Verifies, deduplicates and durably appends `lines`; rejected lines are quarantined.
    /// Outcomes come back in input order.
    public func ingest(_ lines: [IngestLine], recordedAt: Int64) throws -> [IngestOutcome] {
        try ingesting { try ingestLocked(lines, recordedAt: recordedAt, quarantining: true) }
    }

    /// One message, as the webhook receives them: verified on the caller's thread (so
    /// concurrent requests verify in parallel), then stored with every message queued meanwhile
    /// in one batch (one evidence sync and one event sync for all of them: group commit).
    public func ingest(_ line: IngestLine, recordedAt: Int64) throws -> IngestOutcome {
        let slot = StoreSlot(line: line, prepared: preparer.prepare(line))
        waiting.withLock { $0.append(slot) }
        ingesting {
            guard slot.outcome == nil else { return }  // an earlier holder stored it
            let batch = waiting.withLock { queue in defer { queue.removeAll() }; return queue }
            do {
                let outcomes = try store(batch.map(\.prepared), lines: batch.map(\.line)[...], recordedAt: recordedAt, quarantining: true)
                for (queued, outcome) in zip(batch, outcomes) { queued.outcome = .success(outcome) }
            } catch {
                for queued in batch { queued.outcome = .failure(error) }
            }
        }
        return try slot.outcome!.get()
    }

    /// A webhook message waiting to be stored. `outcome` is written and read only while holding
    /// `ingestion`, which orders the accesses.
    final class StoreSlot: @unchecked Sendable {
        let line: IngestLine
        let prepared: Result<PreparedMessage, VerificationError>
        var outcome: Result<IngestOutcome, any Error>?

        init(line: IngestLine, prepared: Result<PreparedMessage, VerificationError>) {
            self.line = line
            self.prepared = prepared
        }
    }

    /// Lines per verification chunk: verifying chunk k + 1 overlaps storing chunk k.
    static let chunkSize = 256

    func ingestLocked(_ lines: [IngestLine], recordedAt: Int64, quarantining: Bool) throws -> [IngestOutcome] {
        let chunks = stride(from: 0, to: lines.count, by: Self.chunkSize).map { $0..<min(lines.count, $0 + Self.chunkSize) }
        var outcomes: [IngestOutcome] = []
        outcomes.reserveCapacity(lines.count)
        var next = chunks.first.map { prepareInBackground(Array(lines[$0])) }
        for (index, range) in chunks.enumerated() {
            let prepared = next!.wait()
            next = index + 1 < chunks.count ? prepareInBackground(Array(lines[chunks[index + 1]])) : nil
            outcomes += try store(prepared, lines: lines[range], recordedAt: recordedAt, quarantining: quarantining)
        }
        return outcomes
    }

    /// Deduplicates (only now: dedup follows verification and input order) and stores a chunk.
    private func store(_ prepared: [Result<PreparedMessage, VerificationError>], lines: ArraySlice<IngestLine>, recordedAt: Int64, quarantining: Bool) throws -> [IngestOutcome] {
        var outcomes = [IngestOutcome?](repeating: nil, count: prepared.count)
        var accepted: [(index: Int, message: PreparedMessage)] = []
        var batchKeys = Set<String>()
        // Looked up under the lock: a copy of the set would be copied whole by the insert below.
        let duplicates = state.withLock { state in
            prepared.map { result in (try? result.get()).map { state.known.contains($0.key) } ?? false }
        }
        for (index, (result, line)) in zip(prepared, lines).enumerated() {
            switch result {
            case .failure(let error):
                outcomes[index] = .rejected(reason: error.reason.rawValue, detail: error.detail)
                if quarantining { try quarantine.add(line, reason: error.reason.rawValue, detail: error.detail, at: recordedAt) }
            case .success(let message):
                if duplicates[index] || !batchKeys.insert(message.key).inserted {
                    outcomes[index] = .duplicate
                } else {
                    accepted.append((index, message))
                }
            }
        }
        if !accepted.isEmpty {
            let positions = try store(accepted.map(\.message), recordedAt: recordedAt)
            for ((index, _), position) in zip(accepted, positions) { outcomes[index] = .appended(position.description) }
            state.withLock { state in for (_, message) in accepted { state.known.insert(message.key) } }
        }
        return outcomes.map { $0! }
    }

    /// Verification of one chunk, running on other threads while the caller stores the last.
    private final class PendingChunk: @unchecked Sendable {
        // Written once before `done` is signalled and read only after waiting on it.
        var result: [Result<PreparedMessage, VerificationError>] = []
        let done = DispatchSemaphore(value: 0)

        func wait() -> [Result<PreparedMessage, VerificationError>] {
            done.wait()
            return result
        }
    }

    private func prepareInBackground(_ lines: [IngestLine]) -> PendingChunk {
        let pending = PendingChunk()
        DispatchQueue.global().async {
            pending.result = self.prepareInParallel(lines)
            pending.done.signal()
        }
        return pending
    }

    private func prepareInParallel(_ lines: [IngestLine]) -> [Result<PreparedMessage, VerificationError>] {
        let results = Mutex([Result<PreparedMessage, VerificationError>?](repeating: nil, count: lines.count))
        let preparer = self.preparer
        let chunk = max(1, lines.count / 16)
        DispatchQueue.concurrentPerform(iterations: (lines.count + chunk - 1) / chunk) { part in
            let range = (part * chunk)..<min(lines.count, (part + 1) * chunk)
            let local = range.map { preparer.prepare(lines[$0]) }
            results.withLock { all in for (offset, result) in zip(range, local) { all[offset] = result } }
        }
        return results.withLock { $0.map { $0! } }
    }

    /// Appends evidence (new headers first), then events; returns the events' positions.
    private func store(_ messages: [PreparedMessage], recordedAt: Int64) throws -> [LogPosition] {
        var headers = state.withLock { $0.headers }
        var newHeaders: [[UInt8]] = []
        for message in messages {
            let outer = Array(message.message.prefix { $0 != UInt8(ascii: ".") })
            let nestedHeaders = message.nested.map { Array($0.prefix { $0 != UInt8(ascii: ".") }) }
            for header in [outer] + nestedHeaders where headers[HeaderKey(header)] == nil && !newHeaders.contains(header) {
                newHeaders.append(header)
            }
        }
        if !newHeaders.isEmpty {
            let positions = try evidence.append(newHeaders.map { LogRecord(kind: Evidence.headerKind, payload: $0) })
            for (header, position) in zip(newHeaders, positions) { headers[HeaderKey(header)] = position.rawValue }
            state.withLock { $0.headers = headers }
        }
        let records = messages.map { message in
            LogRecord(kind: Evidence.messageKind, payload: Evidence.encode(key: message.key, message: message.message, outerPayload: message.outerPayload, nested: message.nested) { headers[HeaderKey($0)]! })
        }
        let evidencePositions = try evidence.append(records)
        var eventRecords: [LogRecord] = []
        eventRecords.reserveCapacity(messages.count)
        for (index, message) in messages.enumerated() {
            let event = message.makeEvent(EvidenceRef(position: evidencePositions[index].rawValue, length: UInt32(records[index].payload.count)))
            eventRecords.append(EventRecord.logRecord(for: event, recordedAtMillis: recordedAt))
        }
        let positions = try events.append(eventRecords)
        if let last = positions.last { appendedEnd.store(last.rawValue, ordering: .releasing) }
        scheduleFold()
        return positions
    }

    /// The verbatim signed message stored at an evidence position.
    public func signedMessage(at position: UInt64) throws -> [UInt8] {
        try Self.signedMessage(at: position, evidenceDirectory: directory + "/evidence")
    }

    public static func signedMessage(at position: UInt64, evidenceDirectory: String) throws -> [UInt8] {
        let reader = LogReader(directory: evidenceDirectory)
        let record = try reader.record(at: LogPosition(rawValue: position))
        return try Evidence.decode(record.payload) { try reader.record(at: LogPosition(rawValue: $0)).payload }.message
    }

    /// Signed messages stored (header records of the evidence log are not messages).
    public static func messageCount(evidenceDirectory: String) throws -> Int {
        guard FileIO.exists(evidenceDirectory) else { return 0 }
        var count = 0
        try LogReader(directory: evidenceDirectory).scan { entry in
            if entry.kind == Evidence.messageKind { count += 1 }
            return true
        }
        return count
    }

    public static func quarantinedCount(directory: String) throws -> Int {
        guard FileIO.exists(directory + "/quarantine") else { return 0 }
        return try Quarantine.entries(in: directory + "/quarantine").count
    }
}
