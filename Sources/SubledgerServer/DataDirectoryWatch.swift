import Dispatch
import SubledgerCore
import Synchronization

/// Tells, once, that the data directory's path no longer names the directory the server opened:
/// moved, or replaced by a restore done with the server running. The logs refuse appends from
/// then on (`LogWriter`), but reads by path would answer from the other directory, and the
/// webhook's acknowledgements wait for a fold that reads there: a restart is what mends it.
public final class DataDirectoryWatch: Sendable {
    private let path: String
    private let identity: DirectoryIdentity?
    private let onMoved: @Sendable () -> Void
    private let stopped = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    static let period = 1.0

    /// Watches the directory `path` names now.
    public init(path: String, onMoved: @escaping @Sendable () -> Void) {
        self.path = path
        identity = DirectoryIdentity(path)
        self.onMoved = onMoved
    }

    public func start() {
        DispatchQueue.global(qos: .utility).async { [self] in
            while !stopped.load(ordering: .acquiring) {
                if let identity, !identity.isNamed(by: path) {
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
