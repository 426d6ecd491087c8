import Dispatch
import SubledgerCore
import SubledgerJWS
import SubledgerLog

/// Stores webhook messages in groups, in two stages that overlap: while one group's events are
/// written and synced with its evidence (the back stage), the next group is deduplicated and its
/// evidence written (the front stage). A group enters the back stage only after the group before
/// it has left it, so storage order is queue order.
///
/// Each stage runs on a thread of its own, started with the ledger at normal priority: the
/// webhook's workers verify at a lower one, and a stage that ran on them waited for the CPU behind
/// every verification after each of its syncs (measured: 2.3 ms for a front stage that does no
/// sync). A message waits on a semaphore of its own and is woken once, with its outcome.
final class GroupCommit: Sendable {
    /// The front stage of one group: dedup, quarantine, evidence. Returns what the back stage needs.
    typealias Front = @Sendable ([Slot]) throws -> Staged
    /// The back stage: events, sync, index, then `onAppended` (the first message's). Returns
    /// outcomes in slot order.
    typealias Back = @Sendable (Staged, _ onAppended: @Sendable (LogPosition) -> Void) throws -> [IngestOutcome]
    typealias Staged = IngestionPipeline.Staged

    private let state = Lock(State())
    /// Counts what the front thread has to do: queued messages, exclusive callers, stopping.
    private let work = DispatchSemaphore(value: 0)
    /// Admits one group at a time to the back stage.
    private let backFree = DispatchSemaphore(value: 1)
    /// Groups past the front stage, for the back thread (one at a time, since the front thread
    /// waits for `backFree` first); `handedOff` counts them, and once more to stop.
    private let handOff = Lock<[(group: [Slot], staged: Result<Staged, any Error>)]>([])
    private let handedOff = DispatchSemaphore(value: 0)
    private let threads: Lock<[PosixThread]> = Lock([])

    private struct State {
        var queue: [Slot] = []
        /// Callers of `exclusively`, served before the queue so a steady webhook load cannot
        /// starve a batch: each is granted both stages and signals `done` when finished.
        var exclusive: [(granted: DispatchSemaphore, done: DispatchSemaphore)] = []
        var stopped = false
    }

    /// A webhook message waiting to be stored, and what came of it.
    final class Slot: Sendable {
        let line: IngestLine
        let prepared: Result<PreparedMessage, VerificationError>
        let recordedAt: Int64
        let onAppended: @Sendable (LogPosition) -> Void
        fileprivate let wake = DispatchSemaphore(value: 0)
        fileprivate let outcome = Lock<Result<IngestOutcome, any Error>?>(nil)

        init(line: IngestLine, prepared: Result<PreparedMessage, VerificationError>, recordedAt: Int64, onAppended: @escaping @Sendable (LogPosition) -> Void) {
            self.line = line
            self.prepared = prepared
            self.recordedAt = recordedAt
            self.onAppended = onAppended
        }
    }

    /// Starts the two stage threads; `stop()` ends them.
    func start(front: @escaping Front, back: @escaping Back) throws {
        let started = try [
            Self.spawn("subledger-front") { self.runFront(front) },
            Self.spawn("subledger-back") { self.runBack(back) },
        ]
        threads.withLock { $0 = started }
    }

    /// Queues a verified message and returns once its group is stored.
    func submit(_ line: IngestLine, _ prepared: Result<PreparedMessage, VerificationError>, recordedAt: Int64, onAppended: @escaping @Sendable (LogPosition) -> Void) throws -> IngestOutcome {
        let slot = Slot(line: line, prepared: prepared, recordedAt: recordedAt, onAppended: onAppended)
        let queued = state.withLock { state in
            if !state.stopped { state.queue.append(slot) }
            return !state.stopped
        }
        guard queued else { throw LedgerError.storage("the ledger is closed; open it again to ingest") }
        work.signal()
        slot.wake.wait()
        return try slot.outcome.withLock { $0 }!.get()
    }

    /// Runs `body` holding both stages, after the groups in progress: batch ingestion and closing.
    func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        let turn = (granted: DispatchSemaphore(value: 0), done: DispatchSemaphore(value: 0))
        let running = state.withLock { state in
            if !state.stopped { state.exclusive.append(turn) }
            return !state.stopped
        }
        if running {
            work.signal()
            turn.granted.wait()
        }
        defer { if running { turn.done.signal() } }
        return try body()
    }

    /// Lets the groups queued finish, then stops and joins the stage threads; later messages fail.
    func stop() {
        state.withLock { $0.stopped = true }
        work.signal()
        for thread in threads.withLock({ $0 }) { thread.join() }
        threads.withLock { $0 = [] }
    }

    private enum Next {
        case group([Slot])
        case exclusive(granted: DispatchSemaphore, done: DispatchSemaphore)
        case stop
        case nothing
    }

    private func runFront(_ front: Front) {
        while true {
            work.wait()
            let next: Next = state.withLock { state in
                if !state.exclusive.isEmpty {
                    let turn = state.exclusive.removeFirst()
                    return .exclusive(granted: turn.granted, done: turn.done)
                }
                if !state.queue.isEmpty {
                    defer { state.queue.removeAll() }
                    return .group(state.queue)
                }
                return state.stopped ? .stop : .nothing
            }
            switch next {
            case .group(let group):
                let staged = Result { try front(group) }
                backFree.wait()
                handOff.withLock { $0.append((group, staged)) }
                handedOff.signal()
            case .exclusive(let granted, let done):
                backFree.wait()
                granted.signal()
                done.wait()
                backFree.signal()
            case .stop:
                handedOff.signal()
                return
            case .nothing:
                continue
            }
        }
    }

    private func runBack(_ back: Back) {
        while true {
            handedOff.wait()
            guard let (group, staged) = handOff.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
            let outcomes = staged.flatMap { staged in Result { try back(staged, group[0].onAppended) } }
            backFree.signal()
            for (index, slot) in group.enumerated() {
                slot.outcome.withLock { $0 = outcomes.map { $0[index] } }
                slot.wake.signal()
            }
        }
    }

    /// A stage thread, created by the caller and so at its priority.
    private static func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) throws -> PosixThread {
        do {
            return try PosixThread.spawn(name: name, body)
        } catch {
            throw LedgerError.storage("could not start the ingestion thread \(name) (errno \(error.errno))")
        }
    }
}
