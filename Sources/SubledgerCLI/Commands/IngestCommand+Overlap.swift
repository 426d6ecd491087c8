import Dispatch
import SubledgerLedger
import Synchronization

extension IngestCommand {
    /// A batch being stored on `queue` while the caller reads the next one: read in turn, the
    /// file left both cores idle for ~5% of an ingest.
    final class PendingBatch: Sendable {
        private let batch: BatchVerification
        private let outcomes = Mutex<Swift.Result<[IngestOutcome], any Error>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        private init(_ batch: BatchVerification) {
            self.batch = batch
        }

        var lines: [IngestLine] { batch.lines }

        /// `queue` is serial (so it has a thread of its own to block in the ledger's pipeline),
        /// and batches are started one at a time, each after the last was collected.
        static func start(_ batch: BatchVerification, into ledger: Ledger, recordedAt: Int64, on queue: DispatchQueue) -> PendingBatch {
            let pending = PendingBatch(batch)
            queue.async {
                let result = Swift.Result { try ledger.ingest(batch, recordedAt: recordedAt) }
                pending.outcomes.withLock { $0 = result }
                pending.done.signal()
            }
            return pending
        }

        /// The batch's outcomes, in line order, once it is stored.
        func wait() throws -> [IngestOutcome] {
            done.wait()
            return try outcomes.withLock { $0 }!.get()
        }
    }
}
