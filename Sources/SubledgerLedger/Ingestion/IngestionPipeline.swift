import SubledgerEvents
import SubledgerJWS
import SubledgerLog
import SubledgerProjections

/// The write side of a ledger: verify in parallel → dedup → group commit, evidence first, then
/// the events that reference it, each batch durable before any outcome is reported. Input order
/// is storage order, and outcomes come back in input order.
///
/// # Concurrency
///
/// Who calls: webhook worker threads (`ingest(_ line:)`, one message each) and one CLI thread
/// (`ingest(_ lines:)`, whole files), at the same time if they like.
///
/// - Verification is pure (`MessagePreparer`) and runs outside any lock: a webhook message on
///   its own worker thread; a CLI chunk of 256 lines on Dispatch's global threads (spread with
///   `concurrentPerform`) while the turn's holder stores the chunk before it.
/// - The turn (`GroupCommit`, a semaphore) admits one batch at a time. Its holder alone does
///   everything that follows verification, in this order: dedup lookups, quarantine appends,
///   evidence appends (and the header table), event appends, the dedup index commit, then
///   `onAppended`. So it owns the header table, the index's writes and the order of the logs.
/// - `GroupCommit`'s queue lock is taken to queue a verified message (outside the turn) and to
///   take the queue (inside it); each slot's outcome lock is taken to set or read its outcome.
///   Both are leaves, held for in-memory work only.
/// - The logs order their own appends (`LogWriter`); `EvidenceStore.headers` and
///   `DedupIndex.state` are leaf locks, uncontended since only the turn's holder uses them.
///   LMDB transactions of the dedup index run in the turn too: one writer, never nested.
///
/// - Opening (the logs' recovery, the index's catch-up) happens in `init`, before the pipeline
///   is shared; `close()` takes the turn, so it waits for the batch in progress.
///
/// Lock order: turn → {queue, slot outcome, header table, index state, LMDB transaction,
/// `LogWriter`'s queue}; no leaf lock is held while taking another. The pipeline never touches the
/// projection's locks: `onAppended` runs in the turn and must not block (the ledger stores the
/// position in an atomic and schedules a fold on its own queue).
final class IngestionPipeline: Sendable {
    let preparer: MessagePreparer
    let events: LogWriter
    let evidence: EvidenceStore
    let quarantine: Quarantine
    let index: DedupIndex
    let commits = GroupCommit()
    /// Lines per verification chunk: verifying chunk k + 1 overlaps storing chunk k.
    static let chunkSize = 256

    /// Opens the logs, the quarantine and the dedup index of a data directory (the logs first:
    /// their recovery cuts a torn tail before the index reads them).
    init(layout: DataDirectoryLayout, logOptions: LogOptions = LogOptions(), preparer: MessagePreparer) throws {
        self.preparer = preparer
        events = try LogWriter(directory: layout.log, options: logOptions)
        let evidenceLog = try LogWriter(directory: layout.evidence, options: logOptions)
        quarantine = try Quarantine(directory: layout.quarantine)
        index = try DedupIndex(path: layout.dedupIndex, eventLog: LogReader(directory: layout.log), evidenceLog: LogReader(directory: layout.evidence))
        evidence = EvidenceStore(log: evidenceLog, headers: try index.headerTable())
    }

    /// Waits for the batch in progress, then closes the logs and the index; later ingestion fails.
    func close() {
        commits.inTurn {
            events.close()
            evidence.close()
            quarantine.close()
            index.close()
        }
    }

    /// Verifies, deduplicates and durably appends `lines`, quarantining rejected lines when
    /// `quarantining`. `onAppended` gets the last event position after each stored chunk.
    func ingest(_ lines: [IngestLine], recordedAt: Int64, quarantining: Bool, onAppended: (LogPosition) -> Void) throws -> [IngestOutcome] {
        try commits.inTurn {
            let chunks = stride(from: 0, to: lines.count, by: Self.chunkSize).map { $0..<min(lines.count, $0 + Self.chunkSize) }
            var outcomes: [IngestOutcome] = []
            outcomes.reserveCapacity(lines.count)
            var next = chunks.first.map { prepareInBackground(Array(lines[$0])) }
            for (index, range) in chunks.enumerated() {
                let prepared = next!.wait()
                next = index + 1 < chunks.count ? prepareInBackground(Array(lines[chunks[index + 1]])) : nil
                outcomes += try store(prepared, lines: lines[range], recordedAt: recordedAt, quarantining: quarantining, onAppended: onAppended)
            }
            return outcomes
        }
    }

    /// One message, as the webhook receives them: verified on the caller's thread (so concurrent
    /// requests verify in parallel), then stored with every message queued meanwhile.
    func ingest(_ line: IngestLine, recordedAt: Int64, onAppended: (LogPosition) -> Void) throws -> IngestOutcome {
        try commits.submit(line, preparer.prepare(line)) { batch in
            try store(batch.map(\.prepared), lines: batch.map(\.line)[...], recordedAt: recordedAt, quarantining: true, onAppended: onAppended)
        }
    }

    /// Deduplicates (only now: dedup follows verification and input order) and stores a chunk.
    private func store(_ prepared: [Result<PreparedMessage, VerificationError>], lines: ArraySlice<IngestLine>, recordedAt: Int64, quarantining: Bool, onAppended: (LogPosition) -> Void) throws -> [IngestOutcome] {
        var outcomes = [IngestOutcome?](repeating: nil, count: prepared.count)
        var accepted: [(index: Int, message: PreparedMessage)] = []
        var batchKeys = Set<String>()
        let known = try index.contains(prepared.map { (try? $0.get())?.key })
        for (index, (result, line)) in zip(prepared, lines).enumerated() {
            switch result {
            case .failure(let error):
                outcomes[index] = .rejected(reason: error.reason.rawValue, detail: error.detail)
                if quarantining { try quarantine.add(line, reason: error.reason.rawValue, detail: error.detail, at: recordedAt) }
            case .success(let message):
                if known[index] || !batchKeys.insert(message.key).inserted {
                    outcomes[index] = .duplicate
                } else {
                    accepted.append((index, message))
                }
            }
        }
        if !accepted.isEmpty {
            let positions = try append(accepted.map(\.message), recordedAt: recordedAt)
            for ((index, _), position) in zip(accepted, positions) { outcomes[index] = .appended(position.description) }
            onAppended(positions.last!)
        }
        return outcomes.map { $0! }
    }

    /// Appends evidence, then events, then indexes them; returns the events' positions.
    private func append(_ messages: [PreparedMessage], recordedAt: Int64) throws -> [LogPosition] {
        let stored = try evidence.append(messages)
        let records = zip(messages, stored.references).map { message, reference in
            EventRecord.logRecord(for: message.makeEvent(reference), recordedAtMillis: recordedAt)
        }
        let positions = try events.append(records)
        index.record(keys: messages.map(\.key), headers: stored.newHeaders,
                     through: DedupIndex.Checkpoint(event: positions.last!, eventPayload: records.last!.payload, evidence: stored.last))
        return positions
    }
}
