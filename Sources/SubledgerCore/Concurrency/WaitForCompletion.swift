import Dispatch

/// Calls `start` with a completion and blocks the calling thread until it is called, on any
/// thread: the blocking form of an API that answers through a completion.
public func waitForCompletion<Success: Sendable, Failure: Error>(
    _ start: (@escaping @Sendable (Result<Success, Failure>) -> Void) -> Void
) -> Result<Success, Failure> {
    let result = Lock<Result<Success, Failure>?>(nil)
    let done = DispatchSemaphore(value: 0)
    start { outcome in
        result.withLock { $0 = outcome }
        done.signal()
    }
    done.wait()
    return result.withLock { $0 }!
}
