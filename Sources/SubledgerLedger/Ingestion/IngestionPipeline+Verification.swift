import Dispatch
import SubledgerJWS
import Synchronization

extension IngestionPipeline {
    /// Verification of one chunk, running on other threads while the CLI stores the last.
    final class PendingChunk: Sendable {
        private let result = Mutex<[Result<PreparedMessage, VerificationError>]>([])
        private let done = DispatchSemaphore(value: 0)

        func finish(_ prepared: [Result<PreparedMessage, VerificationError>]) {
            result.withLock { $0 = prepared }
            done.signal()
        }

        func wait() -> [Result<PreparedMessage, VerificationError>] {
            done.wait()
            return result.withLock { $0 }
        }
    }

    func prepareInBackground(_ lines: [IngestLine]) -> PendingChunk {
        let pending = PendingChunk()
        let preparer = self.preparer
        DispatchQueue.global().async {
            pending.finish(Self.prepareInParallel(lines, with: preparer))
        }
        return pending
    }

    private static func prepareInParallel(_ lines: [IngestLine], with preparer: MessagePreparer) -> [Result<PreparedMessage, VerificationError>] {
        let results = Mutex([Result<PreparedMessage, VerificationError>?](repeating: nil, count: lines.count))
        // Parts of a few lines: the cores wait for the chunk's last part, so big parts left one
        // idle for up to 16 lines' verification at the end of every chunk.
        let chunk = max(1, lines.count / 64)
        DispatchQueue.concurrentPerform(iterations: (lines.count + chunk - 1) / chunk) { part in
            let range = (part * chunk)..<min(lines.count, (part + 1) * chunk)
            let local = range.map { preparer.prepare(lines[$0]) }
            results.withLock { all in for (offset, result) in zip(range, local) { all[offset] = result } }
        }
        return results.withLock { $0.map { $0! } }
    }
}
