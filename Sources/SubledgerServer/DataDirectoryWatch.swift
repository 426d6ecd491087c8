import Dispatch
import Synchronization

/// Tells, once, that the ledger's data directory or one of its logs is no longer where it was
/// opened: moved, or replaced by a restore done with the server running. The logs refuse appends
/// from then on (`LogWriter`), but reads by path would answer from the other directory, and the
/// webhook's acknowledgements wait for a fold that reads there: the server must stop.
public final class DataDirectoryWatch: Sendable {
    private let isInPlace: @Sendable () -> Bool
    private let onMoved: @Sendable () -> Void
    private let stopped = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    static let period = 1.0

    /// Asks `isInPlace` every second (`Ledger.isInPlace`, which compares with what was opened).
    public init(isInPlace: @escaping @Sendable () -> Bool, onMoved: @escaping @Sendable () -> Void) {
        self.isInPlace = isInPlace
        self.onMoved = onMoved
    }

    public func start() {
        DispatchQueue.global(qos: .utility).async { [self] in
            while !stopped.load(ordering: .acquiring) {
                if !isInPlace() {
                    onMoved()
                    break
                }
                _ = wake.wait(timeout: .now() + Self.period)
            }
            finished.signal()
        }
    }

    public func stop() {
        stopped.store(true, ordering: .releasing)
        wake.signal()
        finished.wait()
    }
}
