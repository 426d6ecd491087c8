import Dispatch
import Synchronization

/// Fetches pages on a thread of its own while the caller ingests the ones before, so the wait
/// for Apple (or the network) overlaps verification, and hands over everything fetched meanwhile
/// at once, so one group commit stores several pages.
///
/// At most `capacity` items wait; the fetching thread blocks beyond that.
final class PagePrefetcher<Item: Sendable>: Sendable {
    enum Delivery: Sendable {
        case item(Item)
        case failed(any Error)
        case finished
    }

    private let queue = Mutex<[Delivery]>([])
    private let available = DispatchSemaphore(value: 0)
    private let space: DispatchSemaphore
    private let cancelled = Atomic<Bool>(false)
    private let done = DispatchSemaphore(value: 0)

    /// Starts `produce` at once; it hands over items with the function it is given, which
    /// returns false once the consumer stopped.
    init(capacity: Int, produce: @escaping @Sendable (_ send: (Item) -> Bool) throws -> Void) {
        space = DispatchSemaphore(value: capacity)
        DispatchQueue.global(qos: .userInitiated).async { [self] in
            do {
                try produce { item in
                    space.wait()
                    guard !cancelled.load(ordering: .acquiring) else { return false }
                    push(.item(item))
                    return true
                }
                push(.finished)
            } catch {
                push(.failed(error))
            }
            done.signal()
        }
    }

    private func push(_ delivery: Delivery) {
        queue.withLock { $0.append(delivery) }
        available.signal()
    }

    /// Blocks until something is there, then takes everything there is (in order).
    func takeAll() -> [Delivery] {
        available.wait()
        let taken = queue.withLock { queue in
            defer { queue.removeAll() }
            return queue
        }
        // One signal per delivery was made; the first was consumed by the wait above.
        for _ in 1..<max(1, taken.count) { available.wait() }
        for case .item in taken { space.signal() }
        return taken
    }

    /// Stops the producer at its next hand-over and waits for it to end.
    func cancel() {
        cancelled.store(true, ordering: .releasing)
        space.signal()
        done.wait()
    }
}
