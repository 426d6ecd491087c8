extension HTTPServer {
    /// How the server listens, what it accepts and how long it waits.
    public struct Configuration: Sendable {
        /// A numeric IPv4 or IPv6 address, or `localhost`. Names are never resolved.
        public var host: String
        /// 0 picks a free port; ``HTTPServer/port`` tells which.
        public var port: Int
        /// Connections served at once. One more is accepted, answered 503 and closed, so an
        /// overloaded server says so instead of leaving clients in the kernel's backlog.
        public var maxConnections: Int
        /// Streamed responses (Server-Sent Events) open at once; nil: three quarters of
        /// ``maxConnections``. A stream holds its connection for as long as its client follows,
        /// so without a bound followers could take every connection from the other routes
        /// (the webhook, health checks, reads). The next is answered 503 `busy` instead.
        public var maxStreams: Int?
        /// The request line and headers, CRLFs included; more is answered 431.
        public var maxHeaderBytes: Int
        /// Header lines per request; more is answered 431.
        public var maxHeaderCount: Int
        /// The request body after chunked decoding; more is answered 413 without reading it.
        public var maxBodyBytes: Int
        /// From the first byte of a request to its last: a request that takes longer (a slow or
        /// stalled client) is answered 408 and its connection closed.
        public var readTimeout: Duration
        /// How long a keep-alive connection may wait for its next request before being closed.
        public var idleTimeout: Duration
        /// How long a response may wait with the client acknowledging nothing of it: a client
        /// that stopped reading or vanished is closed then, one reading slowly is not. A stream's
        /// client that vanished frees its slot, though what waits for it sits in the kernel.
        public var writeTimeout: Duration
        /// How long ``HTTPServer/shutdown()`` lets connections finish before closing them; it
        /// still waits for handlers that are running, since a thread cannot be interrupted.
        public var shutdownTimeout: Duration
        /// Threads that call the handler. A handler that blocks holds its thread; one that
        /// answers later (the webhook: it verifies, queues the message and returns) does not, so
        /// its requests in progress are not bounded by this. The webhook's work here is signature
        /// checks, so a thread per core keeps the cores busy, and more preempt one another
        /// (`LedgerServer.httpConfiguration`). The default, 8, suits handlers that block.
        public var workerThreads: Int
        /// Threads of their own for GET and HEAD, so reads never wait behind slow writes (such
        /// as signature checks and syncs); 0 sends every request to the one pool.
        public var readWorkerThreads: Int
        /// How much lower the priority of the other workers is when reads have their own
        /// (`nice` steps): under load the signature checks of writes fill every core, and reads,
        /// a few microseconds each, should not queue behind them for the CPU. 15 rather than 5
        /// since the write workers were 64: look-ups under a full webhook load went from a p99
        /// of 7.5–10 ms to 3.4–5.5 ms on two cores, with the webhook's rate unchanged.
        public var writeWorkerNiceness: Int32 = 15
        /// Reads that take seconds (an audit folding the whole log): they go to threads of their
        /// own, ``slowReadThreads``, and wait there behind one another, so the read threads stay
        /// free for look-ups. Two such reports once held every look-up and `/metrics` scrape for
        /// 15 s at 10 M events.
        public var isSlowRead: @Sendable (HTTPRequest) -> Bool = { _ in false }
        /// Threads for the reads ``isSlowRead`` picks; 0 sends them with the other reads.
        public var slowReadThreads = 0
        /// Slow reads waiting for a thread beyond those running; more are answered 503 with
        /// `Retry-After`: a waiting one runs even if its client has gone (the loop does not
        /// watch a connection whose request is with a worker), so an impatient user's refreshes
        /// would queue a report each, and shutdown would wait for them all.
        public var maxWaitingSlowReads = 4
        /// How much lower the slow reads' priority is than the other reads' (`nice` steps), so a
        /// look-up beside a running audit gets a core when it needs one; still above the writes'
        /// signature checks, since someone is waiting for the audit.
        public var slowReadNiceness: Int32 = 10
        /// A path the event loop answers itself, `200 ok`, for GET and HEAD: a liveness probe
        /// that never waits behind the handler's reads (16 heavy ones at once held it 3 s).
        public var livenessPath: String?
        /// A path the event loop answers itself as ``livenessPath``, but with what ``notReady``
        /// gives while it gives one: a readiness probe. Apart from liveness, so that an
        /// orchestrator neither restarts a server that is getting ready nor sends it traffic.
        public var readinessPath: String?
        /// Asked at each request for ``readinessPath``: what to answer instead of `ok` while the
        /// server listens but cannot answer all it serves yet (a ledger whose projection database
        /// is rebuilt on open), so that a probe does not send traffic it would only refuse.
        public var notReady: @Sendable () -> HTTPError? = { nil }
        /// Over ``maxConnections``, how long a connection must have waited for its next request
        /// (at most half of ``idleTimeout``), or have been receiving one, before its slot goes
        /// to a newcomer: one accepted or answered just now may have its request in the socket,
        /// unread, and a real client sends a request's head and body at once.
        public var slotGrace: Duration = .seconds(1)
        /// Requests buffered past ``largeRequestBytes`` at once: past this many, another is
        /// answered 503 (`Retry-After`). A thousand connections each sending most of a 1 MiB body
        /// and holding it held a GiB, which the process kept; App Store notifications are about
        /// 16 KB, and are never held back by it.
        public var maxLargeRequests = 32
        public var largeRequestBytes = 32 * 1024
        /// Pending connections the kernel queues before the server accepts them (`listen(2)`).
        public var backlog: Int
        public var accessLog: AccessLog

        public init(host: String = "127.0.0.1", port: Int = 8080, maxConnections: Int = 1024,
                    maxHeaderBytes: Int = 16 * 1024, maxHeaderCount: Int = 100, maxBodyBytes: Int = 1024 * 1024,
                    readTimeout: Duration = .seconds(30), idleTimeout: Duration = .seconds(60),
                    writeTimeout: Duration = .seconds(30), shutdownTimeout: Duration = .seconds(30),
                    workerThreads: Int = 8, backlog: Int = 1024, accessLog: AccessLog = .standardError,
                    readWorkerThreads: Int = 2) {
            self.host = host
            self.port = port
            self.maxConnections = maxConnections
            self.maxHeaderBytes = maxHeaderBytes
            self.maxHeaderCount = maxHeaderCount
            self.maxBodyBytes = maxBodyBytes
            self.readTimeout = readTimeout
            self.idleTimeout = idleTimeout
            self.writeTimeout = writeTimeout
            self.shutdownTimeout = shutdownTimeout
            self.workerThreads = workerThreads
            self.readWorkerThreads = readWorkerThreads
            self.backlog = backlog
            self.accessLog = accessLog
        }

        func validate() {
            precondition(maxConnections > 0, "maxConnections must be positive")
            precondition((maxStreams ?? 0) >= 0, "maxStreams must not be negative")
            precondition(maxHeaderBytes >= 64 && maxHeaderCount > 0, "header limits must allow a request line and some headers")
            precondition(maxBodyBytes >= 0, "maxBodyBytes must not be negative")
            precondition(workerThreads > 0, "workerThreads must be positive")
            precondition(readWorkerThreads >= 0, "readWorkerThreads must not be negative")
            precondition(slowReadThreads >= 0 && maxWaitingSlowReads >= 0, "slowReadThreads and maxWaitingSlowReads must not be negative")
            for timeout in [readTimeout, idleTimeout, writeTimeout, shutdownTimeout, slotGrace] {
                precondition(timeout > .zero, "timeouts must be positive")
            }
        }
    }
}
