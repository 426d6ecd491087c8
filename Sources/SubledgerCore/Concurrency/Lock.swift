#if canImport(Glibc)
import Glibc
#endif

/// A value guarded by a plain `pthread_mutex_t`, for short critical sections that many threads
/// enter on every request: the verifier's caches and the server's metrics.
///
/// Not `Synchronization.Mutex`, because on Linux (Swift 6.3) that is a priority-inheritance futex:
/// unlocking hands the lock straight to a sleeping waiter, and until that thread is scheduled
/// every other thread that arrives sleeps as well. Profiled under webhook load, each request put
/// its worker to sleep about once on such a convoy (swiftlang/swift#88440, fixed after 6.3). A
/// plain mutex is released at unlock, so a thread that is already running takes it.
///
/// `@unchecked Sendable`: `value` is read and written only inside `withLock`, with the mutex
/// held, and `Value` is itself `Sendable`.
public final class Lock<Value: Sendable>: @unchecked Sendable {
    @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>
    @usableFromInline var value: Value

    public init(_ value: Value) {
        mutex = .allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
        self.value = value
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with the value while holding the lock; keep it to in-memory work.
    @inlinable
    public func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
