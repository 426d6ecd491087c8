import Dispatch
import SubledgerJWS
import SubledgerCore

/// Stores webhook messages in groups, in two stages that overlap: while one group's events are
/// appended and synced (the back stage), the next group's dedup and evidence sync run (the
/// front stage). Evidence stays durable before any event that references it is written, and a
/// group enters the back stage only after the group before it has left it, so storage order is
/// queue order.
///
/// A message waits for its group on a semaphore of its own, woken once: to lead the next group
/// through both stages, or with its outcome. Whoever leaves the front stage hands it to the first
/// message queued meanwhile, with every message queued meanwhile as its group, so the front
/// stage never idles while messages wait, and nobody passes through a turn just to find its
/// message stored (under load that hand-over chain of wake-ups was what the webhook waited on).
final class GroupCommit: Sendable {
    private let front = Lock(Front())
    /// Admits one group at a time to the back stage; only the holder of the front stage waits for
    /// it, so groups enter it in queue order.
    private let back = DispatchSemaphore(value: 1)

    private struct Front {
        var busy = false
        /// Verified messages waiting for the front stage.
        var queue: [Slot] = []
        /// Callers of `exclusively` waiting for both stages; served before the queue, so a
        /// steady webhook load cannot starve a batch.
        var exclusive: [DispatchSemaphore] = []
    }

    /// A webhook message waiting to be stored, and what came of it.
    final class Slot: Sendable {
        let line: IngestLine
        let prepared: Result<PreparedMessage, VerificationError>
        fileprivate let wake = DispatchSemaphore(value: 0)
        fileprivate let role = Lock<Role>(.queued)

        fileprivate enum Role {
            case queued
            case lead([Slot])
            case stored(Result<IngestOutcome, any Error>)
        }

        init(line: IngestLine, prepared: Result<PreparedMessage, VerificationError>) {
            self.line = line
            self.prepared = prepared
        }
    }

    /// Runs `body` holding both stages, after the groups in progress: batch ingestion and closing.
    func exclusively<T>(_ body: () throws -> T) rethrows -> T {
        let granted: DispatchSemaphore? = front.withLock { front in
            guard front.busy else {
                front.busy = true
                return nil
            }
            let granted = DispatchSemaphore(value: 0)
            front.exclusive.append(granted)
            return granted
        }
        granted?.wait()
        back.wait()
        defer {
            back.signal()
            handOffFront()
        }
        return try body()
    }

    /// Queues a verified message and returns once it is stored: in a group led by another
    /// message, or in the group this one leads. A group goes through `evidence` (dedup,
    /// quarantine, evidence) holding the front stage, then through `events` (events, index,
    /// `onAppended`) holding the back stage, which returns outcomes in slot order.
    func submit<Staged>(
        _ line: IngestLine, _ prepared: Result<PreparedMessage, VerificationError>,
        evidence: ([Slot]) throws -> Staged, events: (Staged) throws -> [IngestOutcome]
    ) throws -> IngestOutcome {
        let slot = Slot(line: line, prepared: prepared)
        let group: [Slot]? = front.withLock { front in
            front.queue.append(slot)
            guard !front.busy else { return nil }
            front.busy = true
            defer { front.queue.removeAll() }
            return front.queue
        }
        if let group { lead(group, evidence, events) } else { slot.wake.wait() }
        switch slot.role.withLock({ $0 }) {
        case .queued:
            preconditionFailure("a message woke before its group was stored")
        case .lead(let group):
            lead(group, evidence, events)
            return try slot.outcome()
        case .stored(let outcome):
            return try outcome.get()
        }
    }

    /// Takes `group` through both stages (the caller holds the front stage) and wakes its
    /// messages with their outcomes; the leader's own is left in its slot.
    private func lead<Staged>(_ group: [Slot], _ evidence: ([Slot]) throws -> Staged, _ events: (Staged) throws -> [IngestOutcome]) {
        let outcomes: Result<[IngestOutcome], any Error>
        do {
            let staged = try evidence(group)
            back.wait()
            handOffFront()
            defer { back.signal() }
            outcomes = Result { try events(staged) }
        } catch {
            handOffFront()
            outcomes = .failure(error)
        }
        for (index, slot) in group.enumerated() {
            slot.role.withLock { $0 = .stored(outcomes.map { $0[index] }) }
            if index > 0 { slot.wake.signal() }
        }
    }

    /// Passes the front stage on: to a caller of `exclusively`, else to the first queued message
    /// with everything queued as its group, else frees it.
    private func handOffFront() {
        enum Next { case exclusive(DispatchSemaphore), lead(Slot), none }
        let next: Next = front.withLock { front in
            if !front.exclusive.isEmpty { return .exclusive(front.exclusive.removeFirst()) }
            guard let first = front.queue.first else {
                front.busy = false
                return .none
            }
            let group = front.queue
            front.queue.removeAll()
            first.role.withLock { $0 = .lead(group) }
            return .lead(first)
        }
        switch next {
        case .exclusive(let granted): granted.signal()
        case .lead(let slot): slot.wake.signal()
        case .none: break
        }
    }
}

extension GroupCommit.Slot {
    fileprivate func outcome() throws -> IngestOutcome {
        guard case .stored(let outcome) = role.withLock({ $0 }) else {
            preconditionFailure("a group's leader returned before storing it")
        }
        return try outcome.get()
    }
}
