import Dispatch
import Synchronization

/// Runs a check every `period` seconds on a utility thread, from `start` until `stop()`, or
/// until the check answers false (it has done what it watched for).
final class PeriodicCheck: Sendable {
    private let period: Double
    private let stopped = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)

    init(every period: Double) {
        self.period = period
    }

    /// Call once.
    func start(_ check: @escaping @Sendable () -> Bool) {
        DispatchQueue.global(qos: .utility).async { [self] in
            while !stopped.load(ordering: .acquiring) && check() {
                _ = wake.wait(timeout: .now() + period)
            }
            finished.signal()
        }
    }

    /// Returns once the thread has ended. Call once, after `start`.
    func stop() {
        stopped.store(true, ordering: .releasing)
        wake.signal()
        finished.wait()
    }
}
