import Dispatch
import SubledgerCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// An HTTP/1.1 server for a handler, on Linux sockets (Linux only: it uses epoll).
///
/// One event-loop thread (epoll) accepts connections and reads, parses and writes them; a fixed
/// pool of worker threads calls the handler, so a handler waiting for `fsync` holds a worker and
/// never the connections of others. A read's worker sends its response itself, so the answer
/// does not wait for the loop to be scheduled.
///
/// Connections are kept alive by default (HTTP/1.1), close after a response when the client asks
/// (`Connection: close`, or HTTP/1.0 without `keep-alive`), and pipelined requests are answered
/// in order. Bodies may come with `Content-Length` or chunked.
///
/// The server defends itself: limits on header size and count, body size and connection count;
/// a deadline for each request to arrive in full (slow clients get 408) and for idle
/// connections; strict parsing that refuses ambiguous framing. Every response it makes itself is
/// a JSON error `{"error": code, "detail": …}`, but for the probes' `ok`
/// (``Configuration/livenessPath``, ``Configuration/readinessPath``), answered without a worker.
///
/// ```swift
/// var router = Router()
/// router.get("/healthz") { _ in .text("ok") }
/// let server = try HTTPServer(configuration: .init(port: 8080), handler: router)
/// let signal = try server.runUntilSignal()   // SIGTERM or SIGINT: graceful shutdown
/// ```
public final class HTTPServer: Sendable {
    public let configuration: Configuration
    /// The registry holding the server's own metrics (`http_requests_total`,
    /// `http_request_duration_seconds`, `http_connections_open`), to render at `/metrics`
    /// together with the application's.
    public let metrics: Metrics
    /// The port the server listens on: the configured one, or the one the system chose for 0.
    public let port: Int

    private let inbox: LoopInbox
    private let loopThread: Mutex<PosixThread?>
    /// Left by the loop thread when it has finished; waited on by every ``shutdown()`` caller.
    private let finished = DispatchGroup()

    /// Binds, listens and starts serving. `SIGPIPE` is ignored from here on (process-wide): a
    /// client that disconnects must not kill the process.
    public init(configuration: Configuration, metrics: Metrics = Metrics(), handler: some HTTPHandler) throws(HTTPServerError) {
        configuration.validate()
        signal(SIGPIPE, SIG_IGN)
        self.configuration = configuration
        self.metrics = metrics
        let (listener, port) = try SystemCalls.listen(host: configuration.host, port: configuration.port,
                                                      backlog: Int32(clamping: configuration.backlog))
        self.port = port
        var pool: WorkerPool?
        var readPool: WorkerPool?
        var slowReadPool: WorkerPool?
        do throws(HTTPServerError) {
            let inbox = try LoopInbox()
            self.inbox = inbox
            let epoll = try Epoll()
            guard epoll.add(listener, id: EventLoop.listenerID, events: Epoll.readable),
                  epoll.add(inbox.wakeDescriptor, id: EventLoop.inboxID, events: Epoll.readable) else {
                throw HTTPServerError(errno: errno, context: "epoll_ctl")
            }
            pool = try WorkerPool(count: configuration.workerThreads, handler: handler, inbox: inbox,
                                  niceness: configuration.readWorkerThreads > 0 ? configuration.writeWorkerNiceness : 0)
            if configuration.readWorkerThreads > 0 {
                readPool = try WorkerPool(count: configuration.readWorkerThreads, handler: handler, inbox: inbox, name: "http-reader")
            }
            if configuration.slowReadThreads > 0 {
                slowReadPool = try WorkerPool(count: configuration.slowReadThreads, handler: handler, inbox: inbox, name: "http-audit",
                                              niceness: configuration.slowReadNiceness)
            }
            let parts = EventLoop.Parts(configuration: configuration, epoll: epoll, listener: listener, inbox: inbox,
                                        pool: pool!, readPool: readPool, slowReadPool: slowReadPool, metrics: ServerMetrics(metrics))
            let finished = self.finished
            finished.enter()
            do throws(HTTPServerError) {
                loopThread = Mutex(try PosixThread.serverThread(name: "http-loop") {
                    EventLoop(parts).run()
                    finished.leave()
                })
            } catch {
                finished.leave()
                throw error
            }
        } catch {
            pool?.stopAndJoin()
            readPool?.stopAndJoin()
            slowReadPool?.stopAndJoin()
            SystemCalls.close(listener)
            throw error
        }
    }

    /// Convenience for a closure handler.
    public convenience init(configuration: Configuration, metrics: Metrics = Metrics(),
                            handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) throws(HTTPServerError) {
        try self.init(configuration: configuration, metrics: metrics, handler: ClosureHandler(handler))
    }

    /// Stops gracefully and returns when done: stops accepting, closes idle connections and those
    /// whose request has not fully arrived (nothing of it was handled, so a client may send it
    /// again), lets requests being handled or sent finish and closes their connections after the
    /// response. After `shutdownTimeout` the remaining connections are
    /// closed, but handler calls still running are waited for. Any thread may call it, any
    /// number of times — except a handler, which would wait for itself.
    public func shutdown() {
        inbox.requestStop()
        finished.wait()
        let thread = loopThread.withLock { thread in
            defer { thread = nil }
            return thread
        }
        thread?.join()
    }

    /// True once the server has shut down.
    var isStopped: Bool { finished.wait(timeout: .now()) == .success }

    /// Releasing a running server shuts it down (``shutdown()``) first.
    deinit {
        shutdown()
    }
}
