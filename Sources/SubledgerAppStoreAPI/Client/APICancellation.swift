import Dispatch
import Synchronization

/// Stops a run of API requests from another thread (a server shutting down): the request in
/// flight is aborted, a retry wait ends, and no request starts after it.
public final class APICancellation: Sendable {
    private let cancelled = Atomic<Bool>(false)
    /// Ends the retry wait in progress; signalled once, by `cancel`.
    private let wake = DispatchSemaphore(value: 0)

    public init() {}

    public var isCancelled: Bool { cancelled.load(ordering: .acquiring) }

    public func cancel() {
        guard !cancelled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        wake.signal()
    }

    /// Waits `seconds`, less when cancelled meanwhile: the client's waits between retries.
    @Sendable func sleep(_ seconds: Double) {
        guard seconds > 0, !isCancelled else { return }
        _ = wake.wait(timeout: .now() + seconds)
    }
}
