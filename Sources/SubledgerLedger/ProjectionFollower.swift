import Dispatch
import SubledgerLog
import SubledgerProjections
import Synchronization

/// Keeps the projection database following the event log: folds what ingestion appended on a
/// background queue, folds the rest before a read so that reads see every acknowledged event,
/// flushes now and then, rebuilds and closes.
///
/// Concurrency: the store is reachable only inside `store`'s lock, which a fold holds while it
/// folds and a read holds only to fold what is missing; answering runs outside it, through the
/// `ProjectionReader` the read takes away (LMDB read transactions). `appendedEnd` and
/// `eventsFolded` are atomics so that ingestion and metrics never take the lock.
final class ProjectionFollower: Sendable {
    private let store: Mutex<ProjectionStore>
    /// Runs folds, one at a time, off the ingestion path.
    let folding = DispatchQueue(label: "subledger.projections")
    private let foldScheduled = Atomic(false)
    /// The position of the last event appended, so a read knows whether it must fold first.
    private let appendedEnd = Atomic<UInt64>(0)
    /// Events folded, for the projection lag metric without taking the lock.
    private let eventsFolded = Atomic(0)
    /// Events folded at the last flush, and when it was.
    private let lastFlush = Mutex((events: 0, at: ContinuousClock.now))
    /// Commits do not flush; a flush follows this many events folded, or ten minutes with any,
    /// bounding what a system crash makes a restart fold again.
    private let flushEveryEvents: Int
    static let flushEvery = Duration.seconds(600)

    init(_ store: sending ProjectionStore, flushEveryEvents: Int) {
        eventsFolded.store(store.eventsFolded, ordering: .relaxed)
        appendedEnd.store(store.lastPosition?.rawValue ?? 0, ordering: .relaxed)
        lastFlush.withLock { $0.events = store.eventsFolded }
        self.store = Mutex(store)
        self.flushEveryEvents = flushEveryEvents
    }

    /// Events the projection database holds (the log's event count minus this is its lag).
    var foldedEvents: Int { eventsFolded.load(ordering: .relaxed) }

    /// Notes what ingestion appended and has the background queue fold it (once, however many
    /// batches ask). Called in the pipeline's turn, so positions only grow.
    func follow(appendedThrough last: LogPosition) {
        appendedEnd.store(last.rawValue, ordering: .releasing)
        guard !foldScheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        folding.async { [self] in
            foldScheduled.store(false, ordering: .releasing)
            let appended = LogPosition(rawValue: appendedEnd.load(ordering: .acquiring))
            store.withLock { store in
                _ = try? store.catchUp(through: appended)
                let folded = store.eventsFolded
                eventsFolded.store(folded, ordering: .relaxed)
                let last = lastFlush.withLock { $0 }
                let changed = folded - last.events
                guard changed >= flushEveryEvents || (changed > 0 && ContinuousClock.now - last.at >= Self.flushEvery) else { return }
                if (try? store.sync()) != nil { lastFlush.withLock { $0 = (folded, .now) } }
            }
        }
    }

    /// A reader as of every event acknowledged so far: folds first what the background queue
    /// has not reached yet.
    func reader() throws -> ProjectionReader {
        try store.withLock { store in
            let appended = appendedEnd.load(ordering: .acquiring)
            if (store.lastPosition?.rawValue ?? 0) < appended {
                try store.catchUp(through: LogPosition(rawValue: appended))
                eventsFolded.store(store.eventsFolded, ordering: .relaxed)
            }
            return store.reader
        }
    }

    /// Folds the whole log into a fresh database and switches to it.
    func rebuild() throws -> ProjectionStore.RebuildSummary {
        try folding.sync {
            try store.withLock { store in
                let summary = try store.rebuild()
                eventsFolded.store(store.eventsFolded, ordering: .relaxed)
                lastFlush.withLock { $0 = (store.eventsFolded, .now) }
                return summary
            }
        }
    }

    /// Folds what is left and seals the database, so the next open folds only what comes after
    /// it and can check it for damage. Call after the logs are closed.
    func close() {
        folding.sync {
            store.withLock { store in
                _ = try? store.catchUp()
                try? store.seal()
            }
        }
    }
}
