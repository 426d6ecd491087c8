import Dispatch
import SubledgerCore
import SubledgerEvents
import SubledgerJWS
import SubledgerLog
import SubledgerProjections

/// The write side of a ledger: verify in parallel → dedup → group commit, evidence first, then
/// the events that reference it, each batch durable before any outcome is reported. Input order
/// is storage order, and outcomes come back in input order.
///
/// A batch's evidence and events are synced at once (`syncBothLogs`): its events are written
/// only after the batch before it is durable, and a system crash that kept events but not their
/// evidence is repaired at the next open (`cutEventsWithoutEvidence`); such events were never
/// acknowledged.
///
/// # Concurrency
///
/// Who calls: webhook worker threads (`ingest(_ line:)`, one message each) and one CLI thread
/// (`ingest(_ lines:)`, whole files), at the same time if they like.
///
/// - Verification is pure (`MessagePreparer`) and runs outside any lock: a webhook message on
///   its own worker thread; CLI batches on Dispatch's global threads, one batch after another
///   (`BatchVerification`), in chunks of 256 lines that the CLI stores one by one while the next
///   ones are verified.
/// - `GroupCommit` stores webhook messages in groups on two threads of its own, one per stage.
///   The front stage does dedup lookups, quarantine appends and evidence writes (and owns the
///   header table); the back stage writes events, syncs both logs, commits the dedup index,
///   then calls `onAppended`. The front thread hands a group on only when the back stage is
///   free, so the next group's front stage overlaps this group's syncs and groups reach the
///   event log in queue order. A CLI batch (and `close()`) holds both stages throughout
///   (`exclusively`), run on the caller's thread while the stage threads wait.
/// - Dedup sees the groups past the front stage through `staging`: a group's keys are staged
///   before it leaves the front stage and unstaged only after the index has them, and the front
///   stage reads `staging` before the index, so a key is always in one or the other.
/// - `GroupCommit`'s state lock is taken to queue a message or an exclusive caller and to take
///   them; its hand-off lock to pass a staged group to the back thread. Both are leaves, held
///   for in-memory work only; a message's outcome goes to its completion with neither held.
/// - The logs order their own appends (`LogWriter`); `EvidenceStore.headers` is a leaf lock only
///   the front stage uses; `DedupIndex.state` is a leaf lock: the front stage reads through it,
///   the back stage writes. The index's LMDB writes run in the back stage only: one writer,
///   never nested; the front stage's reads are read transactions beside it.
///
/// - Opening (the logs' recovery, the cut of events without evidence, the index's catch-up)
///   happens in `init`, before the pipeline is shared; `close()` takes both stages, so it waits
///   for the groups in progress, then stops the stage threads. An index built from the whole logs
///   in the background gives the evidence store its header table before it answers; until then
///   the front stage's lookups throw, so no group gets past it, and batches wait for it.
///
/// Lock order: front stage → back stage → {`GroupCommit`'s locks, `staging`,
/// header table, index state, LMDB transaction, `LogWriter`'s queue}; no leaf lock is held while
/// taking another. The pipeline never touches the projection's locks: `onAppended` runs in the
/// back stage and must not block (the ledger stores the position in an atomic and schedules a
/// fold on its own queue).
final class IngestionPipeline: Sendable {
    let preparer: MessagePreparer
    let events: LogWriter
    let evidence: EvidenceStore
    let quarantine: Quarantine
    let index: DedupIndex
    let commits = GroupCommit()
    /// Keys of the groups past the front stage: accepted, evidence written, not indexed yet. A
    /// group adds its own and removes its own, since the next group's are added before it leaves:
    /// its own are those no other group had staged (a notification's nested transaction may be
    /// another group's key too, and leaving, that group must not take it from this one).
    private let staging = Lock<Set<String>>([])
    /// Lines per stored chunk: storing chunk k overlaps verifying the chunks after it.
    static let chunkSize = 256
    /// Runs the batches' verifications one after another (`BatchVerification`).
    private let verifying = DispatchQueue(label: "subledger.verify")

    /// Opens the logs, the quarantine and the dedup index of a data directory (the logs first:
    /// their recovery cuts a torn tail before the index reads them). `indexInBackground`: an index
    /// that must be built from the whole logs is built on a thread of its own; messages are
    /// refused with `IngestionUnavailable` until it is open, and batches wait for it.
    init(layout: DataDirectoryLayout, logOptions: LogOptions = LogOptions(), preparer: MessagePreparer, indexInBackground: Bool = false) throws {
        self.preparer = preparer
        // Opening would create a missing log: events beside a new evidence log would be cut as a
        // crash's, and a new event log would be a ledger emptied beside its evidence.
        try EvidenceCoverage.requireBothLogs(layout)
        events = try LogWriter(directory: layout.log, options: logOptions)
        // Refused before the evidence log opens, which would cut its torn tail: a refusal cuts
        // nothing of an evidence log that something other than a crash cut short. Where it does
        // not read, its own open says why.
        if let evidenceEnd = LogWriter.endOnOpening(directory: layout.evidence) {
            _ = try Self.eventsWithoutEvidence(events, evidence: layout.evidence, end: evidenceEnd)
        }
        let evidenceLog = try LogWriter(directory: layout.evidence, options: logOptions)
        // Said, since what follows (an index or a projection that no longer matches the log) would
        // otherwise be all a user sees of it.
        for case let (bytes, file?) in [events.recovery, evidenceLog.recovery].map({ ($0.truncatedBytes, $0.file) }) where bytes > 0 {
            Diagnostics.report("\(file) ended in an append a crash cut short (\(bytes) bytes, never acknowledged): cut")
        }
        let cut = try Self.cutEventsWithoutEvidence(events, evidence: evidenceLog)
        eventsEndOnOpen = cut ?? events.openedTail.end
        quarantine = try Quarantine(directory: layout.quarantine)
        let evidence = EvidenceStore(log: evidenceLog)
        self.evidence = evidence
        index = try DedupIndex(
            path: layout.dedupIndex, eventLog: LogReader(directory: layout.log), evidenceLog: LogReader(directory: layout.evidence),
            buildingInBackground: indexInBackground, opened: { evidence.adopt(headers: $0) })
        try commits.start { group in
            try self.appendEvidence(group.map(\.prepared), lines: group.map(\.line)[...], recordedAt: group[0].recordedAt, quarantining: true)
        } back: { staged, onAppended in
            try self.appendEvents(staged, onAppended: onAppended)
        }
    }

    /// Whether both logs' directories are still where they were opened (`LogWriter.isInPlace`).
    var isInPlace: Bool { events.isInPlace && evidence.log.isInPlace }
    /// Where the event log ended once opened and recovered: the first record appended since.
    let eventsEndOnOpen: LogPosition

    /// Waits for the batch in progress and the index's build, runs `beforeReleasing` with nothing
    /// appending and the logs still held, then closes the logs and the index; later ingestion
    /// fails.
    func close(beforeReleasing: () -> Void) {
        commits.exclusively {
            // While the logs' writer lock is held: another process that took it would remove the
            // index under the build, and append to the logs it reads. Not once the directory was
            // moved: its paths name another ledger's files, and the build is left to end alone.
            if isInPlace { index.waitForBuild() }
            beforeReleasing()
            let inPlace = isInPlace
            events.close()
            evidence.close()
            quarantine.close()
            index.close(sealing: inPlace)
        }
        commits.stop()
    }

    /// Starts verifying `lines` on all cores, after the batches whose verification started before.
    func verify(_ lines: [IngestLine], last: Bool = false) -> BatchVerification {
        BatchVerification(lines, last: last, chunkSize: Self.chunkSize, with: preparer, on: verifying)
    }

    /// Deduplicates and durably appends a batch as its chunks come out of verification,
    /// quarantining rejected lines when `quarantining`. `onAppended` gets the last event position
    /// after each stored chunk.
    func ingest(_ batch: BatchVerification, recordedAt: Int64, quarantining: Bool, onAppended: (LogPosition) -> Void) throws -> [IngestOutcome] {
        try index.waitUntilOpen()
        return try commits.exclusively {
            var outcomes: [IngestOutcome] = []
            outcomes.reserveCapacity(batch.lines.count)
            for chunk in 0..<batch.chunkCount {
                outcomes += try store(batch.take(chunk: chunk), lines: batch.lines[batch.range(ofChunk: chunk)], recordedAt: recordedAt, quarantining: quarantining, onAppended: onAppended)
            }
            return outcomes
        }
    }

    /// One message, as the webhook receives them: verified on the caller's thread (so concurrent
    /// requests verify in parallel), then stored with every message queued meanwhile. `release`
    /// gets what calls the group's callers back once it is stored (the ledger runs it after the
    /// fold); `completion` gets the outcome.
    func ingest(
        _ line: IngestLine, recordedAt: Int64, onAppended: @escaping @Sendable (LogPosition) -> Void,
        release: @escaping GroupCommit.Release = { $0() }, completion: @escaping GroupCommit.Completion
    ) {
        commits.submit(line, prepare: { preparer.prepare(line) }, recordedAt: recordedAt, onAppended: onAppended, release: release,
                       completion: completion)
    }

    /// Deduplicates (only now: dedup follows verification and input order) and stores a chunk.
    private func store(_ prepared: [Result<PreparedMessage, VerificationError>], lines: ArraySlice<IngestLine>, recordedAt: Int64, quarantining: Bool, onAppended: (LogPosition) -> Void) throws -> [IngestOutcome] {
        try appendEvents(appendEvidence(prepared, lines: lines, recordedAt: recordedAt, quarantining: quarantining), onAppended: onAppended)
    }

    /// A chunk past its front stage: outcomes of the messages not accepted, and the accepted
    /// ones with their evidence durable.
    struct Staged: Sendable {
        var outcomes: [IngestOutcome?]
        var accepted: [(index: Int, message: PreparedMessage)]
        /// The keys this chunk staged, removed from `staging` once indexed.
        var staged: [String] = []
        /// Duplicates of messages not indexed yet (earlier in the chunk, or in the group being
        /// stored): their event's position is known once those are stored.
        var duplicates: [(index: Int, key: String)] = []
        var evidence: EvidenceStore.Appended?
        var recordedAt: Int64
        /// Quarantine entries holding a line now accepted, resolved once it is stored.
        var redelivered: [Quarantine.Held] = []
    }

    /// The front stage: dedup against the index and the group in the back stage, quarantine,
    /// then the accepted messages' evidence, written (the back stage syncs it).
    private func appendEvidence(_ prepared: [Result<PreparedMessage, VerificationError>], lines: ArraySlice<IngestLine>, recordedAt: Int64, quarantining: Bool) throws -> Staged {
        var outcomes = [IngestOutcome?](repeating: nil, count: prepared.count)
        var accepted: [(index: Int, message: PreparedMessage)] = []
        var staged: [String] = []
        // Before the index: the back stage indexes a group's keys before it stops staging them.
        var batchKeys = staging.withLock { $0 }
        let known = try index.positions(of: prepared.map { (try? $0.get())?.key })
        var duplicates: [(index: Int, key: String)] = []
        var rejected: [Quarantine.Rejected] = []
        for (index, (result, line)) in zip(prepared, lines).enumerated() {
            switch result {
            case .failure(let error):
                outcomes[index] = .rejected(reason: error.reason.rawValue, detail: error.detail)
                if quarantining {
                    rejected.append(Quarantine.Rejected(line: line, reason: error.reason, detail: error.detail, signedByAppStore: error.signedByAppStore))
                }
            case .success(let message):
                if let position = known[index] {
                    outcomes[index] = .duplicate(of: position.description)
                } else if !batchKeys.insert(message.key).inserted {
                    duplicates.append((index, message.key))
                } else {
                    staged.append(message.key)
                    if let nestedKey = message.nestedKey, batchKeys.insert(nestedKey).inserted { staged.append(nestedKey) }
                    accepted.append((index, message))
                }
            }
        }
        try quarantine.add(rejected, at: recordedAt)
        let redelivered = quarantining ? try quarantine.entries(holding: zip(prepared, lines).lazy.filter { (try? $0.0.get()) != nil }.map(\.1)) : []
        guard !accepted.isEmpty else {
            return Staged(outcomes: outcomes, accepted: [], duplicates: duplicates, evidence: nil, recordedAt: recordedAt, redelivered: redelivered)
        }
        let evidence = try self.evidence.write(accepted.map(\.message))
        staging.withLock { $0.formUnion(staged) }
        return Staged(outcomes: outcomes, accepted: accepted, staged: staged, duplicates: duplicates, evidence: evidence, recordedAt: recordedAt, redelivered: redelivered)
    }

    /// The back stage: writes the events that reference the staged evidence, syncs both logs at
    /// once, then indexes the events and reports the last position to `onAppended`.
    private func appendEvents(_ staged: Staged, onAppended: (LogPosition) -> Void) throws -> [IngestOutcome] {
        var outcomes = staged.outcomes
        if let stored = staged.evidence {
            defer { staging.withLock { $0.subtract(staged.staged) } }
            let messages = staged.accepted.map(\.message)
            let records = zip(messages, stored.references).map { message, reference in
                EventRecord.logRecord(for: message.makeEvent(reference), recordedAtMillis: staged.recordedAt)
            }
            let positions = try events.write(records)
            try syncBothLogs()
            let keys = zip(messages, positions).flatMap { message, position in message.keys.map { ($0, position) } }
            index.record(keys: keys, headers: stored.newHeaders,
                         through: DedupIndex.Checkpoint(event: positions.last!, eventPayload: records.last!.payload, evidence: stored.last))
            for ((index, _), position) in zip(staged.accepted, positions) { outcomes[index] = .appended(position.description) }
            onAppended(positions.last!)
        }
        // Bookkeeping only: what failed to resolve stays listed, and a retry resolves it; the
        // messages are stored, and must not be answered as failed.
        do { try quarantine.resolve(staged.redelivered) } catch {
            Diagnostics.report("the quarantine entries of \(staged.redelivered.count) lines stored since were not marked resolved (\(error)); `subledger quarantine retry` resolves them")
        }
        // The originals are indexed by now: this chunk's just above, the group's before it.
        guard !staged.duplicates.isEmpty else { return outcomes.map { $0! } }
        let originals = try index.positions(of: staged.duplicates.map(\.key))
        for ((index, key), position) in zip(staged.duplicates, originals) {
            guard let position else { throw LedgerError.storage("the message with dedup key \(key) was taken for a duplicate of one not stored") }
            outcomes[index] = .duplicate(of: position.description)
        }
        return outcomes.map { $0! }
    }

    /// Syncs the evidence log (on another thread) and the event log at the same time, so a
    /// group waits for one sync rather than two in a row. Events may then reach the disk before
    /// their evidence: a system crash in between leaves events that `cutEventsWithoutEvidence`
    /// removes at the next open; they were never acknowledged.
    private func syncBothLogs() throws {
        let evidenceSynced = DispatchSemaphore(value: 0)
        let evidenceResult = Lock<Result<Void, any Error>>(.success(()))
        let evidence = evidence
        DispatchQueue.global().async {
            let result = Result { try evidence.sync() }
            evidenceResult.withLock { $0 = result }
            evidenceSynced.signal()
        }
        let eventsResult = Result { try events.sync() }
        evidenceSynced.wait()
        try evidenceResult.withLock { $0 }.get()
        try eventsResult.get()
    }

    /// Cuts the events at the end of the log whose evidence is not in the evidence log: written
    /// while their evidence synced, when the machine stopped. Evidence positions grow with event
    /// positions, so they are a suffix of the active segment (a group's events are written after
    /// the group before it is durable, so a roll never seals them).
    ///
    /// Only a crash leaves such events, and only its last batch's (one `recordedAt`): events
    /// without evidence in a log closed cleanly, or from several batches, mean the evidence log
    /// was cut short, and cutting them would destroy acknowledged events. That is refused as
    /// damage, cutting nothing.
    /// Returns where it cut, if it did.
    @discardableResult
    static func cutEventsWithoutEvidence(_ events: LogWriter, evidence: LogWriter) throws -> LogPosition? {
        guard let cut = try eventsWithoutEvidence(events, evidence: evidence.directory, end: evidence.openedTail.end) else { return nil }
        try events.truncate(from: cut)
        Diagnostics.report("cut the events from position \(cut) on in \(events.directory): their evidence was not on disk when the machine stopped; they were never acknowledged, and the App Store sends them again")
        return cut
    }

    /// The first of the events `cutEventsWithoutEvidence` cuts, given the evidence log in
    /// `evidence` ends at `evidenceEnd`; nil when there are none; throws where it refuses.
    private static func eventsWithoutEvidence(_ events: LogWriter, evidence: String, end evidenceEnd: LogPosition) throws -> LogPosition? {
        guard let last = events.openedTail.lastRecord else { return nil }
        let reader = LogReader(directory: events.directory)
        let lastRecord = try reader.record(at: last)
        let lastEvidence = try lastRecord.payload.withUnsafeBytes { try evidencePosition(kind: lastRecord.kind, payload: $0, at: last, log: events.directory) }
        guard let lastEvidence, lastEvidence >= evidenceEnd.rawValue else { return nil }
        var cut: LogPosition?
        var recordedAt: Set<Int64> = []
        try reader.scan(from: events.openedTail.segmentStart) { entry in
            if cut == nil {
                guard let position = try evidencePosition(kind: entry.kind, payload: entry.payload, at: entry.position, log: events.directory),
                      position >= evidenceEnd.rawValue else { return true }
                cut = entry.position
            }
            if let (time, _) = EventRecord.split(entry.payload) { recordedAt.insert(time) }
            return true
        }
        guard let cut else { return nil }
        guard !events.openedClosedCleanly, recordedAt.count <= 1 else {
            let why = events.openedClosedCleanly ? "the event log was closed cleanly, so no crash cut the evidence short" : "they were stored at \(recordedAt.count) different times, and a crash leaves only its last batch so"
            throw LogError.corrupted(LogProblem(
                file: evidence, offset: Int64(evidenceEnd.rawValue), kind: .truncated,
                detail: "the events from position \(cut) on refer to evidence past the evidence log's end (\(evidenceEnd)), and \(why): the evidence log was removed or cut short. Nothing was cut; restore evidence/ from a backup"))
        }
        return cut
    }

    /// Where the evidence of the event record at `position` is; nil for a record of another kind.
    /// An event record that does not decode is damage, as everywhere else it is met.
    private static func evidencePosition(kind: UInt8, payload: UnsafeRawBufferPointer, at position: LogPosition, log: String) throws(LogError) -> UInt64? {
        guard kind == EventRecord.kind else { return nil }
        return try StoredEvents.view(payload, at: position, log: log).view.evidence.position
    }
}
