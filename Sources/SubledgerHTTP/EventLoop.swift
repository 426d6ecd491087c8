import CEpoll
import SubledgerCore

/// The server's I/O thread: accepts, reads, parses, writes, enforces timeouts and limits.
///
/// One thread with one level-triggered epoll instance owns every socket and all connection
/// state, so none of it needs locks. Complete requests go to the ``WorkerPool``; responses come
/// back through the ``LoopInbox`` (a read's already sent by its worker, ``DirectReply``, when the
/// socket took it). Nothing here blocks: sockets are nonblocking, and the only
/// waits are `epoll_wait` and, at the very end, joining the workers.
///
/// Why not a thread per core, each with its own epoll and `SO_REUSEPORT` listener: the work is
/// in the handlers (verification, `fsync`), not in parsing; one loop keeps one place that knows
/// the connection count (for the limit and graceful shutdown), and handlers that block for
/// milliseconds would stall every other connection of a loop that ran them itself.
final class EventLoop {
    struct Parts: Sendable {
        let configuration: HTTPServer.Configuration
        let epoll: Epoll
        let listener: Int32
        let inbox: LoopInbox
        let pool: WorkerPool
        /// GET and HEAD go here when present.
        let readPool: WorkerPool?
        /// Reads the configuration calls slow go here when present.
        let slowReadPool: WorkerPool?
        let metrics: ServerMetrics
    }

    static let listenerID: UInt64 = 0
    static let inboxID: UInt64 = 1

    private let configuration: HTTPServer.Configuration
    private let epoll: Epoll
    private var listener: Int32?
    private let inbox: LoopInbox
    private let pool: WorkerPool
    private let readPool: WorkerPool?
    private let slowReadPool: WorkerPool?
    private let metrics: ServerMetrics
    private let limits: RequestParser.Limits
    /// The probes' paths as segments, split once rather than at every request.
    private let readinessSegments: [String]?
    private let livenessSegments: [String]?
    private let clock = ContinuousClock()

    private var connections: [UInt64: Connection] = [:]
    private var nextConnectionID: UInt64 = 2
    private var countedConnections = 0
    /// Connections whose response is a stream that started.
    private var openStreams = 0
    /// Connections buffering more than `largeRequestBytes` of a request.
    private var largeRequests = 0
    /// Requests handed to workers whose completions have not come back.
    private var inFlight = 0
    /// The connections whose request is with the slow-read workers, running or waiting.
    private var slowReads: Set<UInt64> = []
    /// Descriptors of connections closed while a worker that may send their reply held the
    /// request, by connection: shut down at once, closed (their number freed) when the completion
    /// comes back. They count against the connection limit until then.
    private var heldDescriptors: [UInt64: Int32] = [:]
    private var acceptPausedUntil: ContinuousClock.Instant?
    private var stopping = false
    private var forceCloseAt: ContinuousClock.Instant?
    private var nextSweep: ContinuousClock.Instant
    private var cachedDate: (second: Int, text: String) = (-1, "")
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)

    /// How long a closing connection may drain the client's leftovers, and how much of them.
    private let lingerTimeout: Duration
    private static let lingerLimit = 1024 * 1024
    /// How often deadlines are checked: an eighth of the shortest timeout, between 5 ms and 250 ms.
    private let sweepInterval: Duration
    /// How long to stop accepting when out of descriptors, so others can close.
    private static let acceptPause = Duration.milliseconds(100)
    private static let continueResponse = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    init(_ parts: Parts) {
        configuration = parts.configuration
        epoll = parts.epoll
        listener = parts.listener
        inbox = parts.inbox
        pool = parts.pool
        readPool = parts.readPool
        slowReadPool = parts.slowReadPool
        metrics = parts.metrics
        limits = RequestParser.Limits(maxHeaderBytes: configuration.maxHeaderBytes,
                                      maxHeaderCount: configuration.maxHeaderCount,
                                      maxBodyBytes: configuration.maxBodyBytes)
        readinessSegments = configuration.readinessPath.flatMap(HTTPRequest.segments(of:))
        livenessSegments = configuration.livenessPath.flatMap(HTTPRequest.segments(of:))
        lingerTimeout = min(configuration.readTimeout, .seconds(2))
        let shortest = [configuration.readTimeout, configuration.idleTimeout, configuration.writeTimeout, lingerTimeout].min()!
        sweepInterval = max(.milliseconds(5), min(.milliseconds(250), shortest / 8))
        nextSweep = clock.now
    }

    deinit {
        readBuffer.deallocate()
    }

    /// Serves until a stop is requested and every connection and handler call has finished;
    /// then stops the workers and closes the listener.
    func run() {
        let events = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: 256)
        defer { events.deallocate() }
        while !(stopping && connections.isEmpty && inFlight == 0) {
            let wait = clock.now.duration(to: nextSweep)
            let milliseconds = wait <= .zero ? 0 : Int32(wait.inMilliseconds + 1)
            let count = epoll.wait(into: events, timeoutMilliseconds: milliseconds)
            let now = clock.now
            for event in events[0..<count] {
                handle(id: event.data.u64, events: event.events, now: now)
            }
            if now >= nextSweep {
                sweep(now)
                nextSweep = now + sweepInterval
            }
        }
        pool.stopAndJoin()
        readPool?.stopAndJoin()
        slowReadPool?.stopAndJoin()
        if let listener { SystemCalls.close(listener) }
    }

    private func handle(id: UInt64, events: UInt32, now: ContinuousClock.Instant) {
        switch id {
        case Self.listenerID:
            acceptConnections(now)
        case Self.inboxID:
            // Before the completions, so a response that arrives with the stop says it closes.
            if inbox.isStopRequested && !stopping { beginStopping(now) }
            for completion in inbox.takeCompletions() { complete(completion, now) }
            for id in inbox.takeReadyStreams() {
                if let connection = connections[id], connection.state == .streaming { pump(connection, now) }
            }
        default:
            guard let connection = connections[id] else { return }
            if events & Epoll.error != 0 {
                close(connection)
            } else if events & Epoll.readable != 0 {
                // A hang-up with data still queued: read it; the read then reports the end.
                readable(connection, now)
            } else if events & Epoll.hangUp != 0 {
                close(connection)
            }
            if events & Epoll.writable != 0 && connection.state != .closed {
                flush(connection, now)
            }
        }
    }

    // MARK: Accepting

    private func acceptConnections(_ now: ContinuousClock.Instant) {
        // A bounded batch, so a flood of connections cannot starve the ones already open.
        for _ in 0..<64 {
            guard let listener else { return }
            switch SystemCalls.accept(listener) {
            case .wouldBlock:
                return
            case .aborted:
                continue
            case .exhausted(let descriptors):
                // Out of descriptors: the longest idle connection gives its own up, as over
                // `maxConnections`, or a limit below that left idle clients holding every
                // descriptor, and the webhook and probes waited unanswered. Not one inside a
                // request, however slow: it is answered or timed out (408). With none idle, or
                // short of memory, which a closed socket does not give back, accepting pauses.
                if descriptors, let idle = longestIdle(now) {
                    close(idle)
                    continue
                }
                _ = epoll.modify(listener, id: Self.listenerID, events: 0)
                acceptPausedUntil = now + Self.acceptPause
                return
            case .accepted(let fd, let remote):
                admit(fd, remote, now)
            }
        }
    }

    private func admit(_ fd: Int32, _ remote: RemoteAddress, _ now: ContinuousClock.Instant) {
        var overLimit = countedConnections + heldDescriptors.count >= configuration.maxConnections
        // A connection with no request begun gives its slot up, the longest idle first: a client
        // that opened the limit's worth and sent nothing kept everyone else, the App Store's
        // webhook too, at 503 until the idle timeout.
        if overLimit, let idle = longestIdle(now) ?? longestStalled(now) {
            close(idle)
            overLimit = countedConnections + heldDescriptors.count >= configuration.maxConnections
        }
        // Connections over the limit and lingering ones get at most as many slots again; past
        // that, a 503 is sent only if the socket buffer takes it at once.
        if overLimit && connections.count - countedConnections >= configuration.maxConnections {
            let response = Self.overloaded.serialized(date: date(), close: true, keepAliveHeader: false, includeBody: true)
            _ = response.withUnsafeBytes { SystemCalls.send(fd, $0) }
            SystemCalls.close(fd)
            record(Connection.Exchange(request: nil, status: 503, bodyBytes: 0, started: now, handlerError: nil, outcome: Self.overloaded.outcome),
                   remote: remote, aborted: true, now: now)
            return
        }
        let id = nextConnectionID
        nextConnectionID += 1
        let connection = Connection(id: id, fd: fd, remote: remote, counted: !overLimit, limits: limits, interest: Epoll.readable)
        guard epoll.add(fd, id: id, events: Epoll.readable) else {
            SystemCalls.close(fd)
            return
        }
        connections[id] = connection
        if connection.counted { countedConnections += 1 }
        metrics.connections.set(Double(connections.count))
        if overLimit {
            respond(connection, Self.overloaded, request: nil, close: true, now: now)
        } else {
            connection.deadline = now + configuration.idleTimeout
        }
    }

    /// The counted connection waiting longest for a request to begin, if any has waited
    /// `slotGrace`: one accepted or answered just now may have its request in the socket, unread.
    private func longestIdle(_ now: ContinuousClock.Instant) -> Connection? {
        let latest = now + configuration.idleTimeout - min(configuration.slotGrace, configuration.idleTimeout / 2)
        var idlest: Connection?
        for connection in connections.values where connection.counted && connection.requestStarted == nil && connection.input.isEmpty {
            guard case .reading = connection.state, let deadline = connection.deadline, deadline <= latest else { continue }
            if let best = idlest?.deadline, best <= deadline { continue }
            idlest = connection
        }
        return idlest
    }

    /// With none idle, the counted connection whose request has been arriving longest, if for
    /// `slotGrace`: a request's head and body come at once from a real client (the App Store's
    /// webhook too), and a client that began the limit's worth of requests and finished none
    /// kept everyone else at 503 for the read timeout, again and again.
    private func longestStalled(_ now: ContinuousClock.Instant) -> Connection? {
        var stalled: Connection?
        for connection in connections.values where connection.counted {
            guard case .reading = connection.state, let started = connection.requestStarted, started <= now - configuration.slotGrace else { continue }
            if let best = stalled?.requestStarted, best <= started { continue }
            stalled = connection
        }
        return stalled
    }

    private static let overloaded: HTTPResponse = {
        var response = HTTPError(.serviceUnavailable, code: "overloaded", detail: "the server has too many open connections; retry shortly").response
        response.headers.set("Retry-After", "1")
        return response
    }()
    private static let tooManyLarge: HTTPResponse = {
        var response = HTTPError(.serviceUnavailable, code: "overloaded", detail: "the server is receiving as many large requests as it holds at once; retry shortly").response
        response.headers.set("Retry-After", "1")
        return response
    }()
    private static let slowReadsBusy: HTTPResponse = {
        var response = HTTPError(.serviceUnavailable, code: "busy",
                                 detail: "as many reads of the whole log (reports at a position, the head) are running and waiting as the server takes; retry in a few seconds").response
        response.headers.set("Retry-After", "10")
        return response
    }()

    // MARK: Reading

    private func readable(_ connection: Connection, _ now: ContinuousClock.Instant) {
        switch connection.state {
        case .reading:
            switch SystemCalls.read(connection.fd, into: readBuffer) {
            case .transferred(let count):
                if connection.requestStarted == nil {
                    connection.requestStarted = now
                    connection.deadline = now + configuration.readTimeout
                }
                connection.input.append(UnsafeRawBufferPointer(rebasing: readBuffer[0..<count]))
                if !connection.holdsLargeRequest, connection.bufferedRequestBytes > configuration.largeRequestBytes {
                    guard largeRequests < configuration.maxLargeRequests else {
                        respond(connection, Self.tooManyLarge, request: nil, close: true, now: now)
                        return
                    }
                    connection.holdsLargeRequest = true
                    largeRequests += 1
                }
                advance(connection, now)
            case .endOfFile:
                connection.peerFinishedSending = true
                advance(connection, now)
            case .wouldBlock:
                break
            case .failed:
                close(connection)
            }
        case .streaming:
            // The client has nothing more to say on a stream; what it sends is dropped, its end ends the stream.
            switch SystemCalls.read(connection.fd, into: readBuffer) {
            case .transferred, .wouldBlock:
                break
            case .endOfFile, .failed:
                close(connection)
            }
        case .lingering:
            switch SystemCalls.read(connection.fd, into: readBuffer) {
            case .transferred(let count):
                connection.discarded += count
                if connection.discarded > Self.lingerLimit { close(connection) }
            case .wouldBlock:
                break
            case .endOfFile, .failed:
                close(connection)
            }
        case .processing, .writing, .closed:
            break
        }
    }

    /// Parses what the connection has buffered: dispatches a complete request, answers a
    /// malformed one, or waits for more.
    private func advance(_ connection: Connection, _ now: ContinuousClock.Instant) {
        // Pipelined requests answered at once would otherwise nest a call each, as deep as a
        // client's read buffer of them.
        guard !connection.advancing else { return }
        connection.advancing = true
        defer {
            connection.advancing = false
            // A request dispatched (its body now the handler's) or answered gives its place back.
            if connection.holdsLargeRequest, connection.bufferedRequestBytes <= configuration.largeRequestBytes {
                releaseLargeRequest(connection)
            }
        }
        while connection.state == .reading {
            switch connection.parser.parse(&connection.input) {
            case .needMoreData:
                if connection.peerFinishedSending {
                    // The client stopped sending without completing a request: nobody to answer.
                    close(connection)
                } else {
                    setInterest(connection, Epoll.readable | (connection.hasPendingOutput ? Epoll.writable : 0))
                }
                return
            case .continueExpected:
                connection.output.append(contentsOf: Self.continueResponse)
                flush(connection, now)
            case .request(var request, let keepAlive):
                request.remoteAddress = connection.remote
                dispatch(connection, request, keepAlive: keepAlive, now: now)
            case .failure(let error, let request):
                var request = request
                request?.remoteAddress = connection.remote
                respond(connection, error.response, request: request, close: true, now: now)
            }
        }
    }

    /// Whether `request` asks for the path of `segments` (decoded, as the router matches).
    private static func isPath(_ segments: [String]?, of request: HTTPRequest) -> Bool {
        guard let segments, let asked = request.pathSegments else { return false }
        return asked == segments
    }

    private func dispatch(_ connection: Connection, _ request: HTTPRequest, keepAlive: Bool, now: ContinuousClock.Instant) {
        let isRead = request.method == "GET" || request.method == "HEAD"
        let readiness = Self.isPath(readinessSegments, of: request)
        if readiness || Self.isPath(livenessSegments, of: request) {
            let notReady = readiness ? configuration.notReady() : nil
            let answer = isRead ? notReady?.response ?? .text("ok\n") : HTTPError(
                .methodNotAllowed, code: "method_not_allowed", detail: "\(request.method) is not allowed here; use GET, HEAD",
                headers: ["Allow": "GET, HEAD"]).response
            respond(connection, answer, request: request, close: !keepAlive, now: now)
            return
        }
        let isSlow = isRead && slowReadPool != nil && configuration.isSlowRead(request)
        if isSlow, slowReads.count >= configuration.slowReadThreads + configuration.maxWaitingSlowReads {
            respond(connection, Self.slowReadsBusy, request: request, close: !keepAlive, now: now)
            return
        }
        connection.state = .processing
        connection.requestStarted = nil
        connection.requestCompleted = now
        connection.deadline = nil
        if !keepAlive || stopping { connection.closeAfterResponse = true }
        setInterest(connection, 0)
        // Closed there (epoll refused the change): its descriptor is gone and may be reused.
        guard connection.state != .closed else { return }
        inFlight += 1
        // Nothing else may be queued on the socket (a 100 Continue not yet sent) ahead of a reply
        // the worker sends, nor follow a reply that closes.
        let reply = isRead && !connection.closeAfterResponse && !connection.hasPendingOutput
            ? DirectReply(descriptor: connection.fd, keepAliveHeader: request.version == .http1_0,
                          includeBody: request.method != "HEAD")
            : nil
        connection.workerMaySend = reply != nil
        if isSlow { slowReads.insert(connection.id) }
        let workers = !isRead ? pool : (isSlow ? slowReadPool : nil) ?? readPool ?? pool
        workers.submit(WorkerPool.Job(connectionID: connection.id, request: request, reply: reply))
    }

    // MARK: Writing

    private func complete(_ completion: LoopInbox.Completion, _ now: ContinuousClock.Instant) {
        inFlight -= 1
        slowReads.remove(completion.connectionID)
        if let held = heldDescriptors.removeValue(forKey: completion.connectionID) { SystemCalls.close(held) }
        guard let connection = connections[completion.connectionID], connection.state == .processing else {
            // A reply the socket took whole reached the client even if it has gone since.
            let delivered = completion.sent.map { $0.count == $0.bytes.count } ?? false
            let exchange = Connection.Exchange(request: completion.request, response: completion.response, started: now,
                                               handlerError: completion.handlerError)
            record(exchange, remote: completion.request.remoteAddress, aborted: !delivered, now: now)
            return
        }
        if let sent = completion.sent {
            connection.output = sent.bytes
            connection.outputSent = sent.count
            beginWriting(connection, request: completion.request, response: completion.response,
                         handlerError: completion.handlerError, now: now)
            if sent.count == sent.bytes.count { connection.exchange?.delivered = sent.at }
            flush(connection, now)
        } else {
            respond(connection, completion.response, request: completion.request, handlerError: completion.handlerError, now: now)
        }
    }

    /// Queues `response` and starts writing it; the connection reads again (or lingers) once it is sent.
    private func respond(_ connection: Connection, _ response: HTTPResponse, request: HTTPRequest?, close: Bool = false,
                         handlerError: String? = nil, now: ContinuousClock.Instant) {
        var response = response
        var handlerError = handlerError
        if let invalidity = response.invalidity {
            response = HTTPError(.internalServerError, code: "invalid_response",
                                 detail: "the server produced a response it cannot send; details are in its log").response
            handlerError = "invalid response: \(invalidity)"
        }
        // Counted here, on the loop's thread, where streams start: handlers that looked at a
        // count from theirs each saw room, and a burst of reconnecting followers took every
        // connection past the bound.
        let maxStreams = configuration.maxStreams ?? configuration.maxConnections * 3 / 4
        if response.stream != nil, openStreams >= maxStreams {
            response = HTTPError(.serviceUnavailable, code: "busy",
                                 detail: "\(maxStreams) streams are open, as many as the server keeps room for beside its other routes; retry shortly").response
            response.headers.set("Retry-After", "5")
        }
        let closing = close || connection.closeAfterResponse || stopping || response.stream != nil
            || response.headers.hasToken("close", in: "Connection")
        connection.closeAfterResponse = closing
        let isHead = request?.method == "HEAD"
        let bytes = response.serialized(date: date(), close: closing,
                                        keepAliveHeader: request?.version == .http1_0, includeBody: !isHead)
        connection.output.append(contentsOf: bytes)
        beginWriting(connection, request: request, response: response, handlerError: handlerError, now: now)
        if let start = response.stream, !isHead, !stopping {
            let stream = ResponseStream(connectionID: connection.id, inbox: inbox)
            connection.stream = stream
            connection.state = .streaming
            openStreams += 1
            start(stream)
        }
        flush(connection, now)
    }

    /// The connection sends its output next; the exchange is logged once it is sent.
    private func beginWriting(_ connection: Connection, request: HTTPRequest?, response: HTTPResponse,
                              handlerError: String?, now: ContinuousClock.Instant) {
        connection.state = .writing
        connection.requestStarted = nil
        connection.exchange = Connection.Exchange(request: request, response: response,
                                                  started: connection.requestCompleted ?? now, handlerError: handlerError)
        connection.exchange?.isStream = response.stream != nil
        connection.requestCompleted = nil
        connection.deadline = now + configuration.writeTimeout
        connection.waitingSince = nil
    }

    /// Moves what a stream has queued to the socket once the connection's output has drained, so
    /// at most one batch waits here and the rest counts against the stream's bound.
    private func pump(_ connection: Connection, _ now: ContinuousClock.Instant) {
        guard let stream = connection.stream, !connection.hasPendingOutput else { return }
        let (bytes, dropped, ended) = stream.take()
        if dropped || (ended && bytes.isEmpty) {
            close(connection)
            return
        }
        guard !bytes.isEmpty else { return }
        if ended { stream.close() }
        // The output has drained: take the stream's buffer itself rather than a copy of it.
        connection.streamedBytes += bytes.count
        connection.output = bytes
        connection.outputSent = 0
        flush(connection, now)
    }

    /// Sends what the kernel takes; finishes the response when all is sent.
    private func flush(_ connection: Connection, _ now: ContinuousClock.Instant) {
        while connection.hasPendingOutput {
            let result = connection.output.withUnsafeBytes { bytes in
                SystemCalls.send(connection.fd, UnsafeRawBufferPointer(rebasing: bytes[connection.outputSent...]))
            }
            switch result {
            case .transferred(let count):
                connection.outputSent += count
                connection.bytesHandedToKernel += count
            case .wouldBlock:
                if connection.state == .writing || connection.state == .streaming { beginWaiting(connection, now) }
                let reading = connection.state == .reading || connection.state == .streaming
                setInterest(connection, Epoll.writable | (reading ? Epoll.readable : 0))
                return
            case .endOfFile, .failed:
                close(connection)
                return
            }
        }
        connection.output.removeAll(keepingCapacity: connection.output.capacity <= 64 * 1024)
        connection.outputSent = 0
        switch connection.state {
        case .writing: responseSent(connection, now)
        case .reading: setInterest(connection, Epoll.readable)
        // A 100 Continue sent while a worker has the request: stop watching for room.
        case .processing: setInterest(connection, 0)
        case .streaming:
            // Drained into the kernel, where it waits for the client.
            beginWaiting(connection, now)
            setInterest(connection, Epoll.readable)
            pump(connection, now)
        default: break
        }
    }

    private func responseSent(_ connection: Connection, _ now: ContinuousClock.Instant) {
        if let exchange = connection.exchange {
            record(exchange, remote: connection.remote, aborted: false, now: now)
            connection.exchange = nil
        }
        if connection.closeAfterResponse {
            linger(connection, now)
            return
        }
        connection.state = .reading
        if connection.input.isEmpty {
            connection.deadline = now + configuration.idleTimeout
        } else {
            connection.requestStarted = now
            connection.deadline = now + configuration.readTimeout
        }
        setInterest(connection, Epoll.readable)
        advance(connection, now)
    }

    // MARK: Closing

    private func linger(_ connection: Connection, _ now: ContinuousClock.Instant) {
        let lingering = connections.count - countedConnections
        guard !connection.peerFinishedSending, lingering < configuration.maxConnections else {
            close(connection)
            return
        }
        SystemCalls.shutdownWrite(connection.fd)
        connection.state = .lingering
        connection.deadline = now + lingerTimeout
        if connection.counted {
            connection.counted = false
            countedConnections -= 1
        }
        setInterest(connection, Epoll.readable)
    }

    private func releaseLargeRequest(_ connection: Connection) {
        guard connection.holdsLargeRequest else { return }
        connection.holdsLargeRequest = false
        largeRequests -= 1
    }

    private func close(_ connection: Connection) {
        guard connection.state != .closed else { return }
        releaseLargeRequest(connection)
        if let exchange = connection.exchange {
            // A stream ends with its connection: what reached the socket of it is its size.
            let streamed = exchange.isStream ? max(0, connection.streamedBytes - (connection.output.count - connection.outputSent)) : nil
            record(exchange, remote: connection.remote, aborted: true, now: clock.now, streamed: streamed)
            connection.exchange = nil
        }
        let held = connection.state == .processing && connection.workerMaySend
        connection.state = .closed
        if let stream = connection.stream {
            stream.close()
            openStreams -= 1
        }
        connections[connection.id] = nil
        if connection.counted { countedConnections -= 1 }
        if held {
            // The client sees the connection end now; the number stays taken. Level-triggered:
            // a descriptor left in the set would report its error again and again.
            SystemCalls.shutdownBoth(connection.fd)
            epoll.remove(connection.fd)
            heldDescriptors[connection.id] = connection.fd
        } else {
            SystemCalls.close(connection.fd)
        }
        metrics.connections.set(Double(connections.count))
    }

    private func setInterest(_ connection: Connection, _ events: UInt32) {
        guard connection.state != .closed, connection.interest != events else { return }
        if epoll.modify(connection.fd, id: connection.id, events: events) {
            connection.interest = events
        } else {
            close(connection)
        }
    }

    // MARK: Time

    /// Enforces deadlines, resumes accepting after a pause, and ends a shutdown that overran.
    private func sweep(_ now: ContinuousClock.Instant) {
        if let paused = acceptPausedUntil, now >= paused, let listener {
            acceptPausedUntil = nil
            _ = epoll.modify(listener, id: Self.listenerID, events: Epoll.readable)
        }
        if let forceCloseAt, now >= forceCloseAt {
            for connection in Array(connections.values) { close(connection) }
            return
        }
        for connection in Array(connections.values) {
            guard let deadline = connection.deadline, deadline <= now else { continue }
            switch connection.state {
            case .reading where connection.requestStarted != nil:
                respond(connection, HTTPError(.requestTimeout, code: "request_timeout",
                                              detail: "the request did not arrive within the read timeout").response,
                        request: nil, close: true, now: now)
            case .writing, .streaming:
                checkProgress(connection, now)
            case .reading, .lingering:
                close(connection)
            case .processing, .closed:
                break
            }
        }
    }

    /// The client has bytes to take, here or in the kernel: the write timeout runs from the last
    /// time it was seen taking any (`checkProgress`), so that bytes handed over meanwhile, such
    /// as a stream's heartbeats, do not put it off. (Without the kernel's count the connection
    /// is closed at the timeout, as a client taking nothing.)
    private func beginWaiting(_ connection: Connection, _ now: ContinuousClock.Instant) {
        guard connection.waitingSince == nil else { return }
        connection.waitingSince = (connection.acknowledgedBytes ?? .max, now)
        connection.deadline = now + progressCheckInterval
    }

    /// How often a connection waiting on its client is checked: one that stops taking bytes is
    /// closed between one write timeout and an eighth more after it last took any.
    private var progressCheckInterval: Duration { configuration.writeTimeout / 8 }

    /// A client that has taken everything waits without a deadline (a stream waiting for its
    /// producer); one that has taken nothing for the write timeout is closed. A slow reader
    /// behind a send buffer the kernel grew to megabytes is kept, though the kernel may not
    /// report room for minutes; a client that vanished (a laptop closed, a NAT that forgot it)
    /// or stopped reading is not. (`TCP_USER_TIMEOUT` also gave up on vanished clients, but reset
    /// slow readers too.)
    private func checkProgress(_ connection: Connection, _ now: ContinuousClock.Instant) {
        guard var waiting = connection.waitingSince else {
            close(connection)
            return
        }
        let unacknowledged = SystemCalls.unacknowledgedBytes(connection.fd)
        if unacknowledged == 0 && !connection.hasPendingOutput {
            connection.waitingSince = nil
            connection.deadline = nil
            return
        }
        if let unacknowledged, connection.bytesHandedToKernel - unacknowledged > waiting.acknowledged {
            waiting = (connection.bytesHandedToKernel - unacknowledged, now)
        }
        guard now - waiting.at < configuration.writeTimeout else {
            close(connection)
            return
        }
        connection.waitingSince = waiting
        connection.deadline = now + progressCheckInterval
    }

    /// Stops accepting, closes idle connections and connections whose request has not arrived
    /// in full, and lets the others finish the request they have.
    ///
    /// A request still arriving is closed rather than waited for: a slow or stalled client would
    /// hold the shutdown for the whole read timeout, and nothing of it was handled or
    /// acknowledged, so the client (the App Store retries webhook deliveries) sends it again.
    private func beginStopping(_ now: ContinuousClock.Instant) {
        stopping = true
        forceCloseAt = now + configuration.shutdownTimeout
        if let listener {
            epoll.remove(listener)
            SystemCalls.close(listener)
            self.listener = nil
        }
        for connection in Array(connections.values) {
            switch connection.state {
            case .reading, .streaming:
                close(connection)
            case .processing, .writing:
                connection.closeAfterResponse = true
            case .lingering, .closed:
                break
            }
        }
    }

    private func date() -> String {
        let now = WallClock.now()
        if now.seconds != cachedDate.second { cachedDate = (now.seconds, WallClock.httpDate(now)) }
        return cachedDate.text
    }

    private func record(_ exchange: Connection.Exchange, remote: RemoteAddress, aborted: Bool, now: ContinuousClock.Instant, streamed: Int? = nil) {
        let latency = exchange.started.duration(to: exchange.delivered ?? now)
        metrics.requests.increment(labels: [ServerMetrics.methodLabel(exchange.request?.method), String(exchange.status)])
        // A stream's life is its client's: as a latency it swamped every other request's.
        if !exchange.isStream { metrics.duration.observe(latency.inSeconds) }
        configuration.accessLog.write(AccessLog.Entry(remote: remote, request: exchange.request, status: exchange.status, outcome: exchange.outcome,
                                                      bodyBytes: streamed ?? (aborted ? 0 : exchange.bodyBytes), latency: latency,
                                                      aborted: aborted && !exchange.isStream, error: exchange.handlerError))
    }
}
