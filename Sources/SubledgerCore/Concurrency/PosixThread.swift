#if canImport(Glibc)
import Glibc
#endif

/// A joinable, named thread (`pthread_create`). The server's loop and workers and the ledger's
/// commit stages are long-lived and block, so they run on threads of their own rather than on
/// Swift concurrency's or Dispatch's shared pools. A thread starts at its creator's priority, or
/// lower (`niceness`): a thread that has lowered its priority cannot raise it again without
/// privileges, so lowered work gets a thread of its own, never a shared pool's.
public struct PosixThread: Sendable {
    private let handle: pthread_t

    /// `pthread_create` refused (`errno`: its return code), for the thread `name`.
    public struct StartError: Error, Sendable, Equatable, CustomStringConvertible {
        public let errno: Int32
        public let name: String

        public var description: String {
            "could not start the thread \(name): \(String(cString: strerror(errno))) (errno \(errno)); the process has reached "
                + "its memory or thread limit (ulimit -d, ulimit -u, the service's MemoryMax or TasksMax): raise it"
        }
    }

    private final class Start: Sendable {
        let name: String
        let niceness: Int32
        let body: @Sendable () -> Void

        init(name: String, niceness: Int32, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.niceness = niceness
            self.body = body
        }

        /// Adds `niceness` to the nice value this thread inherited (`setpriority(PRIO_PROCESS, 0,
        /// …)` applies to the calling thread alone on Linux). Best effort: a failure leaves it at
        /// its creator's priority.
        func lowerPriority() {
            guard niceness > 0 else { return }
            let which = __priority_which_t(PRIO_PROCESS.rawValue)
            let inherited = getpriority(which, 0)
            _ = setpriority(which, 0, min(19, inherited + niceness))
        }

        /// Through `/proc/thread-self/comm` (Linux): Glibc's module hides `pthread_setname_np`.
        /// The system shows at most 15 bytes; `top -H` and profiles show the name.
        func nameThisThread() {
            let descriptor = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            guard descriptor >= 0 else { return }
            _ = Array(name.utf8.prefix(15)).withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
            close(descriptor)
        }
    }

    /// Starts `body` on a new thread named `name`, `niceness` steps below its creator's priority.
    public static func spawn(name: String, niceness: Int32 = 0, _ body: @escaping @Sendable () -> Void) throws(StartError) -> PosixThread {
        let start = Unmanaged.passRetained(Start(name: name, niceness: niceness, body: body))
        var handle = pthread_t()
        let rc = pthread_create(&handle, nil, { argument in
            let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
            start.nameThisThread()
            start.lowerPriority()
            start.body()
            return nil
        }, start.toOpaque())
        guard rc == 0 else {
            start.release()
            throw StartError(errno: rc, name: name)
        }
        return PosixThread(handle: handle)
    }

    /// `pthread_join`: waits for the thread to end. Call exactly once, or `detach` instead.
    public func join() {
        pthread_join(handle, nil)
    }

    /// `pthread_detach`: nobody waits for the thread; its resources go when it ends.
    public func detach() {
        pthread_detach(handle)
    }

    /// `first` on the calling thread while `second` runs on a thread named `name`; both results
    /// once both have ended. Where no thread can start, `second` runs after `first`, here.
    public static func inParallel<First, Second: Sendable>(
        name: String, _ first: () -> First, _ second: @escaping @Sendable () -> Second
    ) -> (First, Second) {
        let result = Lock<Second?>(nil)
        let helper = try? spawn(name: name) {
            let value = second()
            result.withLock { $0 = value }
        }
        let firstResult = first()
        guard let helper else { return (firstResult, second()) }
        helper.join()
        return (firstResult, result.withLock { $0 }!)
    }
}
