import Foundation
import Synchronization
import Testing
import SubledgerCore
@testable import SubledgerHTTP

/// Routes of a small API like Subledger's, behind a token, plus a handler the test can hold.
private func api(token: String, metrics: Metrics, hold: Gate? = nil, entered: Gate? = nil) -> Router {
    let auth = BearerTokenAuthenticator(token: token)
    var router = Router()
    router.get("/healthz") { _ in .text("ok") }
    router.get("/v1/customers/{id}", auth.protect { request in
        .json(#"{"customerId":"\#(request.pathParameters["id"]!)"}"#)
    })
    router.get("/metrics", auth.protect { _ in
        var response = HTTPResponse.text(metrics.render())
        response.headers.set("Content-Type", Metrics.contentType)
        return response
    })
    router.post("/v1/notifications/appstore") { request in
        guard !request.body.isEmpty else { throw HTTPError(.badRequest, code: "malformed_json", detail: "empty body") }
        return .json(#"{"status":"appended"}"#)
    }
    router.get("/hold") { _ in
        entered?.open()
        hold?.wait()
        return .text("released")
    }
    router.get("/fail") { _ in throw CocoaError(.fileNoSuchFile) }
    router.get("/split") { _ in HTTPResponse(headers: ["X-Injected": "a\r\nSet-Cookie: evil=1"], body: []) }
    return router
}

@Suite("Server: handlers, routing, auth, metrics, logging, shutdown")
struct ServerBehaviourTests {
    @Test("a handler blocked on one connection does not hold up another")
    func blockingHandler() throws {
        let hold = Gate()
        let entered = Gate()
        try withServer(handler: api(token: "t", metrics: Metrics(), hold: hold, entered: entered)) { server in
            let blocked = try RawClient(port: server.port)
            try blocked.send(get("/hold"))
            #expect(entered.wait())
            let other = try RawClient(port: server.port)
            for _ in 0..<3 {
                try other.send(get("/healthz"))
                #expect(try other.readResponse().text == "ok")
            }
            hold.open()
            #expect(try blocked.readResponse().text == "released")
        }
    }

    @Test("the liveness path, however spelled, is answered by the event loop while every read worker is held")
    func livenessWhileReadsAreHeld() throws {
        let hold = Gate()
        let entered = Gate()
        let configuration = HTTPServer.Configuration.test {
            $0.readWorkerThreads = 1
            $0.livenessPath = "/alive"
        }
        let server = try HTTPServer(configuration: configuration, handler: api(token: "t", metrics: Metrics(), hold: hold, entered: entered))
        defer { server.shutdown() }
        let busy = try RawClient(port: server.port)
        try busy.send(get("/hold"))
        #expect(entered.wait())
        let probe = try RawClient(port: server.port)
        try probe.send(get("/alive"))
        let response = try probe.readResponse()
        #expect(response.status == 200 && response.text == "ok\n")
        // The same path spelled with an escape is the same resource (RFC 3986, 6.2.2.2).
        try probe.send(get("/%61live"))
        let escaped = try probe.readResponse()
        #expect(escaped.status == 200 && escaped.text == "ok\n")
        hold.open()
        #expect(try busy.readResponse().text == "released")
        // Pipelined, a read buffer's worth at once: each answered, in order.
        try probe.send(String(repeating: get("/alive"), count: 3000))
        var answered = 0
        while answered < 3000, (try? probe.readResponse())?.status == 200 { answered += 1 }
        #expect(answered == 3000)
    }

    @Test("the readiness path answers what `notReady` gives while it gives one, then ok; the liveness path answers ok throughout")
    func readinessAnswersNotReady() throws {
        let ready = Atomic(false)
        try withServer(.test {
            $0.livenessPath = "/alive"
            $0.readinessPath = "/ready"
            $0.notReady = { ready.load(ordering: .acquiring) ? nil : HTTPError(.serviceUnavailable, code: "starting", detail: "not yet", headers: ["Retry-After": "5"]) }
        }) { server in
            let client = try RawClient(port: server.port)
            try client.send(get("/ready"))
            let waiting = try client.readResponse()
            #expect(waiting.status == 503)
            #expect(waiting.header("Retry-After") == "5")
            #expect(waiting.text.contains(#""error":"starting""#))
            try client.send(get("/alive"))
            let alive = try client.readResponse()
            #expect(alive.status == 200 && alive.text == "ok\n")
            ready.store(true, ordering: .releasing)
            try client.send(get("/ready"))
            let answered = try client.readResponse()
            #expect(answered.status == 200 && answered.text == "ok\n")
        }
    }

    @Test("the liveness path answers another method 405 naming GET and HEAD, as every route does, not 404")
    func livenessPathRefusesOtherMethods() throws {
        try withServer(.test { $0.livenessPath = "/alive" }) { server in
            let client = try RawClient(port: server.port)
            try client.send("POST /alive HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n")
            let response = try client.readResponse()
            #expect(response.status == 405)
            #expect(response.header("Allow") == "GET, HEAD")
            #expect(response.text.contains(#""error":"method_not_allowed""#))
        }
    }

    @Test("shutdown finishes a request in progress, closes idle connections and stops accepting")
    func gracefulShutdown() throws {
        let hold = Gate()
        let entered = Gate()
        let server = try HTTPServer(configuration: .test(), handler: api(token: "t", metrics: Metrics(), hold: hold, entered: entered))
        let idle = try RawClient(port: server.port)
        try idle.send(get("/healthz"))
        #expect(try idle.readResponse().status == 200)
        let busy = try RawClient(port: server.port)
        try busy.send(get("/hold"))
        #expect(entered.wait())

        let stopped = inBackground { server.shutdown() }
        #expect(try idle.isClosedByServer())
        #expect(throws: ClientError.self) {
            // The listener closes before idle connections are: by now no new connection is accepted.
            try RawClient(port: server.port)
        }
        #expect(!stopped.wait(seconds: 0.05), "shutdown returned while a request was in progress")
        hold.open()
        let response = try busy.readResponse()
        #expect(response.text == "released")
        #expect(response.header("Connection") == "close")
        #expect(try busy.isClosedByServer())
        busy.close()
        #expect(stopped.wait())
    }

    @Test("shutdown closes at once connections whose request has not fully arrived, and still answers the one being handled",
          .timeLimit(.minutes(1)))
    func shutdownClosesIncompleteRequests() throws {
        let hold = Gate()
        let entered = Gate()
        // Timeouts far beyond the client's 5 s wait: a shutdown that waited for them fails the test.
        let configuration = HTTPServer.Configuration.test {
            $0.readTimeout = .seconds(120)
            $0.shutdownTimeout = .seconds(120)
        }
        let server = try HTTPServer(configuration: configuration, handler: api(token: "t", metrics: Metrics(), hold: hold, entered: entered))
        let busy = try RawClient(port: server.port)
        try busy.send(get("/hold"))
        #expect(entered.wait())
        let headers = try RawClient(port: server.port)
        try headers.send("GET /healthz HTTP/1.1\r\nHost: test\r\n")  // no final blank line
        let body = try RawClient(port: server.port)
        try body.send("POST /v1/notifications/appstore HTTP/1.1\r\nHost: test\r\nContent-Length: 100\r\n\r\n{\"signedPayload\":")
        // Let the loop read both, so their requests have started when the stop comes.
        usleep(200_000)

        let stopped = inBackground { server.shutdown() }
        #expect(try headers.isClosedByServer())
        #expect(try body.isClosedByServer())
        #expect(!stopped.wait(seconds: 0.05), "shutdown returned while a request was being handled")
        hold.open()
        let response = try busy.readResponse()
        #expect(response.text == "released")
        #expect(response.header("Connection") == "close")
        busy.close()
        #expect(stopped.wait())
    }

    @Test("answers unknown paths with 404 and wrong methods with 405 and Allow, as JSON")
    func routing() throws {
        try withServer(handler: api(token: "t", metrics: Metrics())) { server in
            let client = try RawClient(port: server.port)
            try client.send(get("/nowhere"))
            let missing = try client.readResponse()
            #expect(missing.status == 404)
            #expect(missing.errorCode == "not_found")
            #expect(missing.header("Content-Type") == "application/json")
            try client.send("DELETE /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
            let wrongMethod = try client.readResponse()
            #expect(wrongMethod.status == 405)
            #expect(wrongMethod.header("Allow") == "GET, HEAD")
            try client.send("POST /v1/notifications/appstore HTTP/1.1\r\nHost: test\r\nContent-Length: 0\r\n\r\n")
            #expect(try client.readResponse().errorCode == "malformed_json")
            // Errors from handlers keep the connection open.
            try client.send(get("/healthz"))
            #expect(try client.readResponse().status == 200)
        }
    }

    @Test("protected routes answer 401 without the token and 200 with it, by header or cookie")
    func bearerAuth() throws {
        try withServer(handler: api(token: "s3cret", metrics: Metrics())) { server in
            let client = try RawClient(port: server.port)
            for extra in ["", "Authorization: Bearer wrong\r\n", "Authorization: Bearer s3cre\r\n", "Cookie: subledger_token=nope\r\n"] {
                try client.send(get("/v1/customers/abc", extra))
                let response = try client.readResponse()
                #expect(response.status == 401, "\(extra)")
                #expect(response.errorCode == "unauthorized")
            }
            for extra in ["Authorization: Bearer s3cret\r\n", "Cookie: a=b; subledger_token=s3cret\r\n"] {
                try client.send(get("/v1/customers/abc", extra))
                let response = try client.readResponse()
                #expect(response.status == 200)
                #expect(response.text == #"{"customerId":"abc"}"#)
            }
            try client.send(get("/healthz"))
            #expect(try client.readResponse().status == 200)
        }
    }

    @Test("a handler's unexpected error becomes a 500 that does not reveal it; a response with CR/LF in a header is refused")
    func handlerFailures() throws {
        let log = LogLines()
        try withServer(.test { $0.accessLog = log.accessLog }, handler: api(token: "t", metrics: Metrics())) { server in
            let client = try RawClient(port: server.port)
            try client.send(get("/fail"))
            let failed = try client.readResponse()
            #expect(failed.status == 500)
            #expect(failed.errorCode == "internal_error")
            #expect(!failed.text.contains("NSCocoaErrorDomain"))
            try client.send(get("/split"))
            let split = try client.readResponse()
            #expect(split.status == 500)
            #expect(split.header("Set-Cookie") == nil)
            #expect(split.header("X-Injected") == nil)
        }
        #expect(log.all.contains { $0.contains("path=/fail") && $0.contains("error=") })
    }

    @Test("serves its own metrics in a text format that parses")
    func metrics() throws {
        let metrics = Metrics()
        try withServer(metrics: metrics, handler: api(token: "t", metrics: metrics)) { server in
            let client = try RawClient(port: server.port)
            for _ in 0..<3 {
                try client.send(get("/healthz"))
                _ = try client.readResponse()
            }
            try client.send(get("/nowhere"))
            _ = try client.readResponse()
            try client.send(get("/metrics", "Authorization: Bearer t\r\n"))
            let response = try client.readResponse()
            #expect(response.header("Content-Type") == Metrics.contentType)
            let samples = parseExposition(response.text)
            let requests = samples.filter { $0.name == "http_requests_total" }
            #expect(requests.first { $0.labels == ["method": "GET", "status": "200"] }?.value == 3)
            #expect(requests.first { $0.labels == ["method": "GET", "status": "404"] }?.value == 1)
            #expect(samples.first { $0.name == "http_request_duration_seconds_count" }?.value == 4)
            // Sub-millisecond answers are told apart: from 5 ms, every read fell in the first bucket.
            #expect(samples.filter { $0.name == "http_request_duration_seconds_bucket" }.compactMap { $0.labels["le"] }.prefix(4)
                    == ["0.00025", "0.0005", "0.001", "0.0025"])
            #expect(samples.first { $0.name == "http_connections_open" }?.value == 1)
        }
    }

    @Test("the access log has one line per request with path and query names, never the token or query values")
    func accessLog() throws {
        let log = LogLines()
        let token = "tok-9f8e7d6c5b4a"
        try withServer(.test { $0.accessLog = log.accessLog }, handler: api(token: token, metrics: Metrics())) { server in
            let client = try RawClient(port: server.port)
            try client.send(get("/v1/customers/abc?asOf=2026-01-01&token=\(token)", "Authorization: Bearer \(token)\r\n"))
            #expect(try client.readResponse().status == 200)
            try client.send(get("/v1/customers/abc", "Cookie: subledger_token=\(token)\r\n"))
            #expect(try client.readResponse().status == 200)
            try client.send("BROKEN\r\n\r\n")
            #expect(try client.readResponse().status == 400)
            #expect(try client.isClosedByServer())
            // A query that cannot be read still leaves the request's method and path to name it.
            let another = try RawClient(port: server.port)
            try another.send(get("/v1/customers/abc?asOf=2026-06-01%"))
            #expect(try another.readResponse().status == 400)
        }
        let lines = log.all
        #expect(lines.count == 4)
        #expect(lines.last?.contains("method=GET path=/v1/customers/abc status=400") == true, "\(lines)")
        #expect(lines.allSatisfy { !$0.contains(token) && !$0.contains("2026-01-01") && !$0.contains("\n") })
        let first = try #require(lines.first)
        for field in ["remote=127.0.0.1:", "method=GET", "path=/v1/customers/abc", "query=asOf,token", "status=200", "bytes=20", " ms="] {
            #expect(first.contains(field), "\(field) missing from \(first)")
        }
        #expect(first.hasPrefix("time=20"))
        #expect(lines[2].contains("method=- path=- status=400"))
    }

    @Test("runUntilSignal shuts down gracefully on the signal and returns its number, also for a signal trapped before the server ran")
    func signals() throws {
        let server = try HTTPServer(configuration: .test(), handler: echo)
        let returned = Locked<Int32?>(nil)
        let done = inBackground { returned.value = try? server.runUntilSignal([SIGUSR2]) }
        // Wait until the handler is installed before raising, or the default action would end the process.
        // A loaded machine may start the thread late: up to 30 s.
        var installed = false
        let deadline = ContinuousClock.now + .seconds(30)
        while !installed && ContinuousClock.now < deadline {
            var current = sigaction()
            sigaction(SIGUSR2, nil, &current)
            installed = current.__sigaction_handler.sa_handler != nil
            if !installed { usleep(1000) }
        }
        try #require(installed)
        let client = try RawClient(port: server.port)
        try client.send(get("/"))
        #expect(try client.readResponse().status == 200)
        kill(getpid(), SIGUSR2)
        #expect(done.wait(seconds: 30))
        #expect(returned.value == SIGUSR2)
        #expect(try client.isClosedByServer())
        #expect(throws: ClientError.self) { try RawClient(port: server.port) }

        // Trapped before the next server listens (as serve does), a signal that comes before
        // it runs is not lost, nor does it end the process: the run returns it at once.
        let trap = try SignalTrap([SIGUSR2])
        let next = try HTTPServer(configuration: .test(), handler: echo)
        // A lost signal would leave the run waiting: a shutdown ends it, returning 0.
        DispatchQueue.global().asyncAfter(deadline: .now() + 30) { next.shutdown() }
        kill(getpid(), SIGUSR2)
        #expect(next.runUntilSignal(trap) == SIGUSR2)
        #expect(throws: ClientError.self) { try RawClient(port: next.port) }
    }

    @Test("refuses an address it cannot listen on with a typed error")
    func bindErrors() throws {
        #expect(throws: HTTPServerError.self) { try HTTPServer(configuration: .test { $0.host = "example.com" }, handler: echo) }
        let first = try HTTPServer(configuration: .test(), handler: echo)
        do {
            _ = try HTTPServer(configuration: .test { $0.port = first.port }, handler: echo)
            Issue.record("a second server bound the same port")
        } catch {
            #expect(error.kind == .addressInUse)
        }
        first.shutdown()
    }
}

@Suite("Server: reads have workers of their own")
struct ReadWorkerTests {
    @Test("with every write worker blocked, GET requests are still answered")
    func readsDoNotWaitForWrites() throws {
        let hold = Gate()
        let entered = Gate()
        var router = Router()
        router.post("/slow") { _ in
            entered.open()
            hold.wait()
            return .text("written")
        }
        router.get("/fast") { _ in .text("read") }
        try withServer(.test { $0.workerThreads = 1; $0.readWorkerThreads = 1 }, handler: router) { server in
            let writer = try RawClient(port: server.port)
            try writer.send("POST /slow HTTP/1.1\r\nHost: test\r\nContent-Length: 1\r\n\r\nx")
            #expect(entered.wait())
            let reader = try RawClient(port: server.port)
            for _ in 0..<3 {
                try reader.send(get("/fast"))
                #expect(try reader.readResponse().text == "read")
            }
            hold.open()
            #expect(try writer.readResponse().text == "written")
        }
    }

    @Test("slow reads wait for one another in a lane of their own: with two read workers and three slow reads blocked, look-ups are answered; past the lane's waiting room a slow read is a 503 with Retry-After", .timeLimit(.minutes(1)))
    func slowReadsHaveALane() throws {
        let hold = Gate()
        let running = Lock((now: 0, most: 0, started: 0))
        var router = Router()
        router.get("/audit") { _ in
            running.withLock { $0.now += 1; $0.most = max($0.most, $0.now); $0.started += 1 }
            hold.wait(seconds: 30)
            running.withLock { $0.now -= 1 }
            return .text("audited")
        }
        router.get("/lookup") { _ in .text("found") }
        let configuration = HTTPServer.Configuration.test {
            $0.readWorkerThreads = 2
            $0.slowReadThreads = 1
            $0.maxWaitingSlowReads = 2
            $0.isSlowRead = { $0.path == "/audit" }
        }
        try withServer(configuration, handler: router) { server in
            let audits = try (0..<3).map { _ in try RawClient(port: server.port) }
            for client in audits { try client.send(get("/audit")) }
            let deadline = ContinuousClock.now + .seconds(5)
            while running.withLock({ $0.started }) == 0 && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
            let lookups = try RawClient(port: server.port)
            for _ in 0..<5 {
                try lookups.send(get("/lookup"))
                #expect(try lookups.readResponse().text == "found")
            }
            #expect(running.withLock { $0.started } == 1, "the other two audits queue behind the first")
            let turnedAway = try RawClient(port: server.port)
            try turnedAway.send(get("/audit"))
            let busy = try turnedAway.readResponse()
            #expect(busy.status == 503 && busy.header("Retry-After") == "10" && busy.errorCode == "busy", "\(busy.status) \(busy.text)")
            for _ in audits { hold.open() }
            #expect(try audits.map { try $0.readResponse().text } == ["audited", "audited", "audited"])
            #expect(running.withLock { $0.most } == 1)
            // The lane's places were given back, and the 503 kept its connection open. A place
            // is given back when the loop learns the worker finished, which a loaded machine may
            // delay past the client reading its answer: busy until then.
            hold.open()
            var again: RawResponse
            let giveBack = ContinuousClock.now + .seconds(30)
            repeat {
                try turnedAway.send(get("/audit"))
                again = try turnedAway.readResponse()
                if again.status == 503 { Thread.sleep(forTimeInterval: 0.01) }
            } while again.status == 503 && ContinuousClock.now < giveBack
            #expect(again.text == "audited")
        }
    }

    @Test("a route that answers later frees its worker: with one write worker, later requests are answered first", .timeLimit(.minutes(1)))
    func deferredAnswersDoNotHoldWorkers() throws {
        let pending = Lock<[AnswerOnce]>([])
        var router = Router()
        router.add("POST", "/later", answeringLater: { request, completion in
            let answer = AnswerOnce(completion)
            pending.withLock { $0.append(answer) }
            // Should the worker block on this answer, the test fails rather than hangs.
            DispatchQueue.global().asyncAfter(deadline: .now() + 10) { answer(.success(.text("unanswered"))) }
        })
        router.post("/now") { _ in .text("now") }
        try withServer(.test { $0.workerThreads = 1; $0.readWorkerThreads = 0 }, handler: router) { server in
            let waiting = try (0..<3).map { _ in try RawClient(port: server.port) }
            for (index, client) in waiting.enumerated() {
                try client.send("POST /later HTTP/1.1\r\nHost: test\r\nContent-Length: 1\r\n\r\nx")
                let deadline = ContinuousClock.now + .seconds(5)
                while pending.withLock({ $0.count }) <= index && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.001) }
            }
            #expect(pending.withLock { $0.count } == 3, "the one worker took each deferred request while none was answered")
            let other = try RawClient(port: server.port)
            try other.send("POST /now HTTP/1.1\r\nHost: test\r\nContent-Length: 1\r\n\r\nx")
            #expect(try other.readResponse().text == "now")
            // Answered in reverse, from this thread: each goes to its own connection.
            for (index, completion) in pending.withLock({ $0 }).enumerated().reversed() {
                completion(index == 1 ? .failure(HTTPError(.serviceUnavailable, code: "later", detail: "retry")) : .success(.text("later \(index)")))
            }
            let answers = try waiting.map { try $0.readResponse() }
            #expect(answers.map(\.status) == [200, 503, 200])
            #expect(answers[0].text == "later 0" && answers[2].text == "later 2")
        }
    }
}

@Suite("Server: a read's worker sends its answer")
struct DirectReplyTests {
    @Test("a read whose client reset the connection keeps its descriptor until answered, so the answer cannot reach the connection accepted after it", .timeLimit(.minutes(1)))
    func resetDuringReadKeepsDescriptor() throws {
        let hold = Gate()
        let entered = Gate()
        let metrics = Metrics()
        let log = LogLines()
        let open = metrics.gauge("http_connections_open", help: "")
        try withServer(.test { $0.accessLog = log.accessLog }, metrics: metrics,
                       handler: api(token: "t", metrics: metrics, hold: hold, entered: entered)) { server in
            let gone = try RawClient(port: server.port)
            try gone.send(get("/hold"))
            #expect(entered.wait())
            let (descriptor, socket) = try #require(serverDescriptor(serverPort: server.port, clientPort: gone.localPort))
            gone.reset()
            #expect(waitUntil { open.value() == 0 }, "the server closed the reset connection")
            #expect(descriptorTarget(descriptor) == socket, "held while the read is handled")
            let next = try RawClient(port: server.port)
            try next.send(get("/healthz"))
            #expect(try next.readResponse().text == "ok")
            hold.open()
            #expect(waitUntil { log.all.contains { $0.contains("/hold") } }, "the held read was answered")
            #expect(waitUntil { descriptorTarget(descriptor) != socket }, "closed once answered")
            try next.send(get("/healthz"))
            #expect(try next.readResponse().text == "ok")
        }
    }

    @Test("only a handler's first answer counts: a second is not sent, and shutdown still finishes", .timeLimit(.minutes(1)))
    func secondAnswerIsDropped() throws {
        var router = Router()
        router.add("GET", "/twice", answeringLater: { _, completion in
            completion(.success(.text("first")))
            completion(.success(.text("second")))
        })
        router.get("/healthz") { _ in .text("ok") }
        let server = try HTTPServer(configuration: .test(), handler: router)
        let client = try RawClient(port: server.port)
        try client.send(get("/twice"))
        #expect(try client.readResponse().text == "first")
        try client.send(get("/healthz"))
        #expect(try client.readResponse().text == "ok")
        let stopped = inBackground { server.shutdown() }
        // A second completion counted would leave the loop waiting for a request it thinks is
        // still in progress: the server is then leaked, so that the test fails instead of hanging.
        if !stopped.wait() {
            Issue.record("shutdown did not finish")
            _ = Unmanaged.passRetained(server)
        }
    }

    @Test("reads answered by their workers keep the connection's framing: keep-alive, HEAD, HTTP/1.0, pipelining")
    func framingOfDirectReplies() throws {
        try withServer(handler: api(token: "t", metrics: Metrics())) { server in
            let client = try RawClient(port: server.port)
            try client.send(get("/healthz") + "HEAD /healthz HTTP/1.1\r\nHost: test\r\n\r\n" + get("/healthz"))
            let first = try client.readResponse()
            let head = try client.readResponse(head: true)
            let third = try client.readResponse()
            #expect(first.text == "ok" && third.text == "ok")
            #expect(head.status == 200 && head.header("Content-Length") == "2" && head.body.isEmpty)
            #expect(first.header("Date") != nil && first.header("Connection") == nil)

            let old = try RawClient(port: server.port)
            try old.send("GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
            #expect(try old.readResponse().header("Connection") == "keep-alive")
            try old.send("GET /healthz HTTP/1.0\r\n\r\n")
            let last = try old.readResponse()
            #expect(last.text == "ok" && last.header("Connection") == "close")
            #expect(try old.isClosedByServer())
        }
    }
}

/// The server's descriptor for the loopback connection between the two ports, and what it
/// names (`socket:[inode]`), from `/proc/net/tcp` and `/proc/self/fd` (the server runs in this
/// process).
private func serverDescriptor(serverPort: Int, clientPort: Int) -> (Int32, String)? {
    // Read to the end: procfs files report a size of 0.
    guard let handle = FileHandle(forReadingAtPath: "/proc/net/tcp"), let bytes = try? handle.readToEnd() else { return nil }
    let table = String(decoding: bytes, as: UTF8.self)
    let local = String(format: ":%04X", serverPort), remote = String(format: ":%04X", clientPort)
    for line in table.split(separator: "\n").dropFirst() {
        let fields = line.split(separator: " ")
        guard fields.count > 9, fields[1].hasSuffix(local), fields[2].hasSuffix(remote) else { continue }
        let socket = "socket:[\(fields[9])]"
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for name in descriptors {
            if let descriptor = Int32(name), descriptorTarget(descriptor) == socket { return (descriptor, socket) }
        }
    }
    return nil
}

private func descriptorTarget(_ descriptor: Int32) -> String? {
    try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)")
}

/// Polls `condition` for up to five seconds.
private func waitUntil(_ condition: () -> Bool) -> Bool {
    let deadline = ContinuousClock.now + .seconds(5)
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        Thread.sleep(forTimeInterval: 0.002)
    }
    return true
}

/// A completion that answers once: later calls do nothing.
private final class AnswerOnce: Sendable {
    private let completion: Lock<HTTPCompletion?>

    init(_ completion: @escaping HTTPCompletion) {
        self.completion = Lock(completion)
    }

    func callAsFunction(_ result: Result<HTTPResponse, any Error>) {
        completion.withLock { $0.take() }?(result)
    }
}
