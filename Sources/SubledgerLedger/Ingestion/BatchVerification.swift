import Dispatch
import SubledgerJWS
import Synchronization

/// A batch of lines being verified on Dispatch's threads (`Ledger.verify(_:last:)`), ready to be
/// stored chunk by chunk (`Ledger.ingest(_:recordedAt:)`) while the rest is verified.
///
/// The lines are verified in parts of a few lines taken in input order, so the first chunks are
/// ready first and the cores do not pause between chunks. Batches are verified one after another
/// on a serial queue of the pipeline: the next batch's verification starts as soon as this one's
/// ends, not once this one is stored. (One `concurrentPerform` per chunk stopped both cores at
/// every chunk boundary until the storing thread woke up; starting a batch only once the one
/// before was stored left one core idle while its last chunks were stored.)
public final class BatchVerification: Sendable {
    typealias Outcome = Result<PreparedMessage, VerificationError>

    private struct State {
        var outcomes: [Outcome?]
        /// Lines of each chunk not verified yet.
        var unverified: [Int]
    }

    /// Lines per part: the cores wait for the batch's last part only, and a part is also the
    /// unit between two takes of the lock.
    private static let partSize = 4

    public let lines: [IngestLine]
    /// No batch follows this one (`Ledger.verify(_:last:)`).
    let last: Bool
    let chunkSize: Int
    private let state: Mutex<State>
    private let verified: [DispatchSemaphore]

    /// Starts verifying `lines` on `queue` (serial), after what is queued there.
    init(_ lines: [IngestLine], last: Bool, chunkSize: Int, with preparer: MessagePreparer, on queue: DispatchQueue) {
        precondition(chunkSize % Self.partSize == 0, "a part must not straddle two chunks")
        self.lines = lines
        self.last = last
        self.chunkSize = chunkSize
        let chunks = (lines.count + chunkSize - 1) / chunkSize
        state = Mutex(State(
            outcomes: [Outcome?](repeating: nil, count: lines.count),
            unverified: (0..<chunks).map { min(chunkSize, lines.count - $0 * chunkSize) }))
        verified = (0..<chunks).map { _ in DispatchSemaphore(value: 0) }
        let parts = (lines.count + Self.partSize - 1) / Self.partSize
        queue.async { [self] in
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                let range = (part * Self.partSize)..<min(lines.count, (part + 1) * Self.partSize)
                let outcomes = range.map { preparer.prepare(lines[$0]) }
                let chunk = range.lowerBound / chunkSize
                let complete = state.withLock { state in
                    for (offset, outcome) in zip(range, outcomes) { state.outcomes[offset] = outcome }
                    state.unverified[chunk] -= range.count
                    return state.unverified[chunk] == 0
                }
                if complete { verified[chunk].signal() }
            }
        }
    }

    var chunkCount: Int { verified.count }

    /// The lines of chunk `index`.
    func range(ofChunk index: Int) -> Range<Int> {
        (index * chunkSize)..<min(lines.count, (index + 1) * chunkSize)
    }

    /// The outcomes of chunk `index` in line order, once all its lines are verified; each chunk
    /// is taken once (its outcomes are released here).
    func take(chunk index: Int) -> [Outcome] {
        verified[index].wait()
        let range = range(ofChunk: index)
        return state.withLock { state in
            defer { state.outcomes.replaceSubrange(range, with: repeatElement(nil, count: range.count)) }
            return state.outcomes[range].map { $0! }
        }
    }
}
