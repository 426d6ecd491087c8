/// Tells, once, that the ledger's data directory or one of its logs is no longer where it was
/// opened: moved, or replaced by a restore done with the server running. The logs refuse appends
/// from then on (`LogWriter`), but reads by path would answer from the other directory, and the
/// webhook's acknowledgements wait for a fold that reads there: the server must stop.
public final class DataDirectoryWatch: Sendable {
    private let periodic = PeriodicCheck(every: 1)
    private let isInPlace: @Sendable () -> Bool
    private let onMoved: @Sendable () -> Void

    /// Asks `isInPlace` every second (`Ledger.isInPlace`, which compares with what was opened).
    public init(isInPlace: @escaping @Sendable () -> Bool, onMoved: @escaping @Sendable () -> Void) {
        self.isInPlace = isInPlace
        self.onMoved = onMoved
    }

    public func start() {
        periodic.start { [isInPlace, onMoved] in
            guard isInPlace() else {
                onMoved()
                return false
            }
            return true
        }
    }

    public func stop() { periodic.stop() }
}
