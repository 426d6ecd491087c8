import CEpoll
#if canImport(Glibc)
import Glibc
#endif

/// A joinable thread (`pthread_create`). The server's loop and workers are long-lived and may
/// block, so they run on threads of their own rather than on Swift concurrency's shared pool.
struct PosixThread: Sendable {
    private let handle: pthread_t

    private final class Start: Sendable {
        let name: String
        let body: @Sendable () -> Void

        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new thread named `name` (at most 15 bytes are shown by the system).
    static func spawn(name: String, _ body: @escaping @Sendable () -> Void) throws(HTTPServerError) -> PosixThread {
        let start = Unmanaged.passRetained(Start(name: name, body: body))
        var handle = pthread_t()
        let rc = pthread_create(&handle, nil, { argument in
            let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
            _ = pthread_setname_np(pthread_self(), String(start.name.utf8.prefix(15))!)
            start.body()
            return nil
        }, start.toOpaque())
        guard rc == 0 else {
            start.release()
            throw HTTPServerError(errno: rc, context: "start thread \(name)")
        }
        return PosixThread(handle: handle)
    }

    /// `pthread_join`: waits for the thread to end. Call exactly once.
    func join() {
        pthread_join(handle, nil)
    }
}
