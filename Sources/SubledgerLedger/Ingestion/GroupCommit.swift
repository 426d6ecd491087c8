import Dispatch
import SubledgerJWS
import SubledgerCore

/// One batch is stored at a time (whoever holds the turn), and webhook messages verified
/// meanwhile wait to be stored together by the next holder: one evidence sync and one event sync
/// for all of them.
final class GroupCommit: Sendable {
    /// A semaphore rather than a `Mutex`: webhook threads wait here through a whole group commit
    /// (an fdatasync), and `Mutex` spins before it sleeps, which took 8% of the CPU that
    /// verification needs (profiled under wrk).
    private let turn = DispatchSemaphore(value: 1)
    /// Verified messages waiting for the next holder of the turn.
    private let waiting = Lock<[Slot]>([])

    /// A webhook message waiting to be stored, and what came of it.
    final class Slot: Sendable {
        let line: IngestLine
        let prepared: Result<PreparedMessage, VerificationError>
        /// Set by the holder of the turn that stored it.
        let outcome = Lock<Result<IngestOutcome, any Error>?>(nil)

        init(line: IngestLine, prepared: Result<PreparedMessage, VerificationError>) {
            self.line = line
            self.prepared = prepared
        }
    }

    /// Runs `body` holding the turn.
    func inTurn<T>(_ body: () throws -> T) rethrows -> T {
        turn.wait()
        defer { turn.signal() }
        return try body()
    }

    /// Queues a verified message and returns once it is stored: by an earlier holder of the turn,
    /// or by this thread with every message queued meanwhile (`store` gets them in queue order
    /// and returns their outcomes in the same order).
    func submit(_ line: IngestLine, _ prepared: Result<PreparedMessage, VerificationError>, store: ([Slot]) throws -> [IngestOutcome]) throws -> IngestOutcome {
        let slot = Slot(line: line, prepared: prepared)
        waiting.withLock { $0.append(slot) }
        inTurn {
            guard slot.outcome.withLock({ $0 == nil }) else { return }
            let batch = waiting.withLock { queue in
                defer { queue.removeAll() }
                return queue
            }
            do {
                let outcomes = try store(batch)
                for (queued, outcome) in zip(batch, outcomes) { queued.outcome.withLock { $0 = .success(outcome) } }
            } catch {
                for queued in batch { queued.outcome.withLock { $0 = .failure(error) } }
            }
        }
        return try slot.outcome.withLock { $0 }!.get()
    }
}
