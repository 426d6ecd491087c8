import Dispatch
import SubledgerJWS
import Synchronization

extension IngestionPipeline {
    /// A batch's verification on Dispatch's threads, in parts of a few lines taken in input order
    /// without a pause between chunks, while the CLI stores each chunk as soon as its lines are
    /// verified.
    ///
    /// One `concurrentPerform` per chunk left both cores idle at every chunk boundary, while the
    /// storing thread woke up and started the next chunk (on this VM a wake-up can take
    /// milliseconds); here the cores only stop at the end of the batch.
    final class BatchVerification: Sendable {
        typealias Outcome = Result<PreparedMessage, VerificationError>

        private struct State {
            var outcomes: [Outcome?]
            /// Lines of each chunk not verified yet.
            var unverified: [Int]
        }

        /// Lines per part: the cores wait for the batch's last part only, but a part is also the
        /// unit between two takes of the lock.
        private static let partSize = 4

        let chunkSize: Int
        private let state: Mutex<State>
        private let verified: [DispatchSemaphore]

        /// Starts verifying `lines` in the background.
        init(_ lines: [IngestLine], chunkSize: Int, with preparer: MessagePreparer) {
            precondition(chunkSize % Self.partSize == 0, "a part must not straddle two chunks")
            self.chunkSize = chunkSize
            let chunks = (lines.count + chunkSize - 1) / chunkSize
            state = Mutex(State(
                outcomes: [Outcome?](repeating: nil, count: lines.count),
                unverified: (0..<chunks).map { min(chunkSize, lines.count - $0 * chunkSize) }))
            verified = (0..<chunks).map { _ in DispatchSemaphore(value: 0) }
            let parts = (lines.count + Self.partSize - 1) / Self.partSize
            DispatchQueue.global().async { [self] in
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

        /// The outcomes of chunk `index` in line order, once all its lines are verified; each
        /// chunk is taken once (its outcomes are released here).
        func take(chunk index: Int) -> [Outcome] {
            verified[index].wait()
            return state.withLock { state in
                let range = (index * chunkSize)..<min(state.outcomes.count, (index + 1) * chunkSize)
                defer { state.outcomes.replaceSubrange(range, with: repeatElement(nil, count: range.count)) }
                return state.outcomes[range].map { $0! }
            }
        }
    }
}
