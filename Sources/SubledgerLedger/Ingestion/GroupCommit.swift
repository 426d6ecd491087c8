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
/// sync). A message's caller is called back once, with its outcome, when its group's `Release`
/// says so (the ledger's, once the group is folded): the webhook's workers go back to verifying
/// instead of sleeping until then.
///
/// A group costs about the same to store and fold whatever its size (two syncs, one LMDB
/// commit), so while other messages are still being verified the front stage gathers for up to
/// `gatherWindow` after the first one queued, or until `gatherTarget` are queued. A lone message
/// (nothing else verifying) is stored at once.
final class GroupCommit: Sendable {
    /// The front stage of one group: dedup, quarantine, evidence. Returns what the back stage needs.
    typealias Front = @Sendable ([Slot]) throws -> Staged
    /// The back stage: events, sync, index, then `onAppended` (the first message's). Returns
    /// outcomes in slot order.
    typealias Back = @Sendable (Staged, _ onAppended: @Sendable (LogPosition) -> Void) throws -> [IngestOutcome]
    typealias Staged = IngestionPipeline.Staged
    /// Gets, once a group is stored, what calls its messages' completions, and runs it (now or
    /// later).
    typealias Release = @Sendable (_ wake: @escaping @Sendable () -> Void) -> Void
    /// What a submitted message's caller is given once its group is released.
    typealias Completion = @Sendable (Result<IngestOutcome, any Error>) -> Void

    private let state = Lock(State())
    /// Wakes the front thread: a group started, filled or has nobody left to wait for; an
    /// exclusive caller; stopping. It checks the state before waiting, so extra signals are harmless.
    private let work = DispatchSemaphore(value: 0)
    /// Admits one group at a time to the back stage.
    private let backFree = DispatchSemaphore(value: 1)
    /// Groups past the front stage, for the back thread (one at a time, since the front thread
    /// waits for `backFree` first); `handedOff` counts them, and once more to stop.
    private let handOff = Lock<[(group: [Slot], staged: Result<Staged, any Error>)]>([])
    private let handedOff = DispatchSemaphore(value: 0)
    private let threads: Lock<[PosixThread]> = Lock([])

    /// How long the first message of a group may wait for others still being verified, and how
    /// many make a group worth storing at once.
    private let gatherWindow: DispatchTimeInterval
    private let gatherTarget: Int

    private struct State {
        var queue: [Slot] = []
        /// When the group being gathered is stored at the latest: its first message's arrival
        /// plus the window.
        var gatherDeadline = DispatchTime.now()
        /// Messages being verified, that will be queued next.
        var preparing = 0
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
        let release: Release
        fileprivate let completion: Completion

        init(line: IngestLine, prepared: Result<PreparedMessage, VerificationError>, recordedAt: Int64,
             onAppended: @escaping @Sendable (LogPosition) -> Void, release: @escaping Release, completion: @escaping Completion) {
            self.line = line
            self.prepared = prepared
            self.recordedAt = recordedAt
            self.onAppended = onAppended
            self.release = release
            self.completion = completion
        }
    }

    /// Under a full webhook load on 2 cores, groups of about 4 messages became about 10 (the
    /// numbers are in docs/ingestion.md).
    init(gatherWindow: DispatchTimeInterval = .milliseconds(4), gatherTarget: Int = 32) {
        self.gatherWindow = gatherWindow
        self.gatherTarget = gatherTarget
    }

    /// Starts the two stage threads; `stop()` ends them.
    func start(front: @escaping Front, back: @escaping Back) throws {
        let started = try [
            Self.spawn("subledger-front") { self.runFront(front) },
            Self.spawn("subledger-back") { self.runBack(back) },
        ]
        threads.withLock { $0 = started }
    }

    /// Verifies a message with `prepare` on the caller's thread and queues it; `completion` gets
    /// its outcome once its group is stored and released, on the thread that releases it.
    func submit(
        _ line: IngestLine, prepare: () -> Result<PreparedMessage, VerificationError>, recordedAt: Int64,
        onAppended: @escaping @Sendable (LogPosition) -> Void, release: @escaping Release = { $0() },
        completion: @escaping Completion
    ) {
        state.withLock { $0.preparing += 1 }
        let slot = Slot(line: line, prepared: prepare(), recordedAt: recordedAt, onAppended: onAppended, release: release, completion: completion)
        let (queued, wakeFront) = state.withLock { state in
            state.preparing -= 1
            guard !state.stopped else { return (false, false) }
            if state.queue.isEmpty { state.gatherDeadline = .now() + gatherWindow }
            state.queue.append(slot)
            return (true, state.queue.count == 1 || state.queue.count >= gatherTarget || state.preparing == 0)
        }
        guard queued else { return completion(.failure(LedgerClosed())) }
        if wakeFront { work.signal() }
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
    }

    /// What the front thread does next, once there is something.
    private func next() -> Next {
        while true {
            let (next, deadline): (Next?, DispatchTime?) = state.withLock { state in
                if !state.exclusive.isEmpty {
                    let turn = state.exclusive.removeFirst()
                    return (.exclusive(granted: turn.granted, done: turn.done), nil)
                }
                if !state.queue.isEmpty {
                    let gathering = state.preparing > 0 && state.queue.count < gatherTarget && !state.stopped
                    if gathering && DispatchTime.now() < state.gatherDeadline { return (nil, state.gatherDeadline) }
                    defer { state.queue.removeAll() }
                    return (.group(state.queue), nil)
                }
                return (state.stopped ? .stop : nil, nil)
            }
            if let next { return next }
            if let deadline { _ = work.wait(timeout: deadline) } else { work.wait() }
        }
    }

    private func runFront(_ front: Front) {
        while true {
            switch next() {
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
            }
        }
    }

    private func runBack(_ back: Back) {
        while true {
            handedOff.wait()
            guard let (group, staged) = handOff.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) else { return }
            let outcomes = staged.flatMap { staged in Result { try back(staged, group[0].onAppended) } }
            backFree.signal()
            group[0].release {
                for (index, slot) in group.enumerated() { slot.completion(outcomes.map { $0[index] }) }
            }
        }
    }

    /// A stage thread, created by the caller and so at its priority.
    private static func spawn(_ name: String, _ body: @escaping @Sendable () -> Void) throws -> PosixThread {
        do {
            return try PosixThread.spawn(name: name, body)
        } catch {
            throw LedgerError.storage("\(error)")
        }
    }
}
