#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore
import SubledgerHTTP
import SubledgerJWS
import SubledgerLedger
import SubledgerLog
import SubledgerProjections

/// The ledger over HTTP: the App Store webhook, health, metrics and the read API.
///
/// The webhook answers 200 only after the message is durable, 422 (quarantined) when it fails
/// verification, so the App Store does not retry a forgery, and 503 when it could not be stored,
/// so the App Store retries it.
public struct LedgerServer: Sendable {
    public let ledger: Ledger
    public let metrics: Metrics
    /// Feeds `GET /v1/events/stream`; stop it when the HTTP server has stopped.
    public let feed: EventFeed
    let authenticator: BearerTokenAuthenticator?
    let ingested: Metrics.Counter
    /// Follows the ledger's count when metrics are read.
    let quarantineNotKept: Metrics.Counter
    let foldFailures: Metrics.Counter
    /// Held through a whole scrape: two at once let the slower set the gauges back to what it
    /// read before the other rendered newer values.
    private let scraping = Lock(())
    let appendLatency: Metrics.Histogram
    /// Renders `?format=csv` on the report routes; without it they answer JSON only.
    let reportCSV: (@Sendable (ReportDocument) throws -> String)?
    /// Monthly rates for `?in=CUR` on the revenue and MRR routes and the dashboard.
    let rates: CurrencyRates?
    /// What `GET /v1/head` counted last, so the next counts only the events appended since.
    let headCache = LedgerHead.Cache()

    public init(
        ledger: Ledger, token: String?, metrics: Metrics = Metrics(), reportCSV: (@Sendable (ReportDocument) throws -> String)? = nil,
        rates: CurrencyRates? = nil, streamHeartbeat: Duration = .seconds(15)
    ) {
        self.ledger = ledger
        self.metrics = metrics
        self.reportCSV = reportCSV
        self.rates = rates
        feed = EventFeed(ledger: ledger, heartbeatEvery: streamHeartbeat)
        authenticator = token.map(BearerTokenAuthenticator.init(token:))
        ingested = metrics.counter("subledger_notifications_total", help: "App Store messages received over HTTP, by outcome", labelNames: ["outcome"])
        // Every outcome from the start, at zero: a rate over a series that does not exist yet
        // is no data, not zero, and an alert on rejections would stay silent.
        for outcome in ["appended", "duplicate", "unavailable"] + VerificationError.Reason.allCases.map(\.rawValue) {
            ingested.increment(by: 0, labels: [outcome])
        }
        quarantineNotKept = metrics.counter(
            "subledger_quarantine_not_kept_total", help: "Webhook bodies that failed verification and were not kept, the quarantine holding its 1 GiB, or its 64 MiB of bodies no App Store signature vouches for (since start)")
        foldFailures = metrics.counter(
            "subledger_projection_fold_failures_total",
            help: "Background folds of the projection database that failed (a full disk); the messages stay stored and acknowledged")
        appendLatency = metrics.histogram(
            "subledger_append_duration_seconds", help: "Verification and durable append of one webhook message",
            buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 1])
    }

    /// The HTTP configuration these routes want: one write worker per online processor. The
    /// only write route, the webhook, answers later, so its worker never waits for a sync or a
    /// fold: it verifies signatures, CPU work, and more workers only preempt one another (on two
    /// cores, 2 rather than 8 took 311–337 µs of server CPU a message instead of 345–381 µs).
    public static func httpConfiguration(host: String, port: Int) -> HTTPServer.Configuration {
        var configuration = HTTPServer.Configuration(host: host, port: port, workerThreads: Processors.online)
        // `ok` from the event loop itself, open to anyone: a probe never waits behind reads.
        // Ready (`/readyz`) once the projection database and the dedup index are open.
        configuration.livenessPath = "/healthz"
        configuration.readinessPath = "/readyz"
        // A report at a log position folds the whole log (8–11 s at 10 M events) and the head
        // reads the event log (1–3 s): they queue in a lane of their own, not ahead of look-ups.
        configuration.slowReadThreads = 1
        // Told by the decoded path the router matches: `/v1/%68ead` is the head too.
        configuration.isSlowRead = { request in
            guard let segments = request.pathSegments, segments.count > 1, segments[0] == "v1" else { return false }
            return segments == ["v1", "head"]
                || (segments.count == 3 && segments[1] == "reports" && request.query.contains { HTTPQuerySource.camelCased($0.name) == "atPosition" })
        }
        return configuration
    }

    public var router: Router {
        var router = Router()
        router.add("POST", "/v1/notifications/appstore", answeringLater: { request, completion in self.receive(request, completion: completion) })
        router.get("/", Dashboard.page(reading { request in try self.dashboard(request) }))
        router.get("/metrics", protected { _ in self.renderMetrics() })
        router.get("/v1/head", protected(reading { request in try self.head(request) }))
        router.get("/v1/customers/{id}", protected(reading { request in
            try self.answer(request) { reader, parameters, now in
                try reader.customer(CustomerQuery(id: request.pathParameters["id"]!, parameters, now: now)).json.serialized()
            }
        }))
        router.get("/v1/customers/{id}/history", protected(reading { request in
            try self.answer(request) { reader, parameters, _ in
                try reader.history(HistoryQuery(id: request.pathParameters["id"]!, parameters)).json.serialized()
            }
        }))
        router.get("/v1/events", protected(reading { request in
            try self.answer(request) { reader, parameters, _ in
                var query = try EventQuery(parameters)
                let maximum = query.raw ? EventQuery.rawPageLimit : EventQuery.pageLimit
                query.limit = min(query.limit ?? maximum, maximum)
                query.examineLimit = EventQuery.pageExamineLimit
                return try reader.events(query).json.serialized()
            }
        }))
        router.get("/v1/events/stream", protected(reading { request in try self.stream(request) }))
        router.get("/v1/reports/{name}", protected(reading { request in
            let name = request.pathParameters["name"]!
            switch request.query["format"] ?? "json" {
            case "json":
                return try self.answer(request, routeNames: Self.reportRouteNames) { reader, parameters, now in
                    let report = try self.report(name, reader, parameters, now, into: request.query["in"])
                    // Converted, as the CLI's --in: with how (`in`) and, for revenue, the total.
                    if let target = request.query["in"].flatMap({ $0.isEmpty ? nil : $0.uppercased() }), let rates = self.rates {
                        switch report {
                        case .revenue(let report): return ConvertedDocument(report: report, currency: target, rates: rates.source, total: report.total).json.serialized()
                        case .mrr(let report): return ConvertedDocument(report: report, currency: target, rates: rates.source).json.serialized()
                        case .mrrSeries(let report): return ConvertedDocument(report: report, currency: target, rates: rates.source).json.serialized()
                        case .churn, .cohorts: break
                        }
                    }
                    switch report {
                    case .revenue(let report): return report.json.serialized()
                    case .mrr(let report): return report.json.serialized()
                    case .mrrSeries(let report): return report.json.serialized()
                    case .churn(let report): return report.json.serialized()
                    case .cohorts(let report): return report.json.serialized()
                    }
                }
            case "csv":
                guard let csv = self.reportCSV else {
                    throw HTTPError(.notAcceptable, code: "format_unavailable", detail: "this server renders JSON only; drop format=csv")
                }
                var response = try self.answer(request, routeNames: Self.reportRouteNames) { reader, parameters, now in
                    try csv(self.report(name, reader, parameters, now, into: request.query["in"]))
                }
                response.headers.set("Content-Type", "text/csv; charset=utf-8")
                response.headers.set("Content-Disposition", "attachment; filename=\"\(name).csv\"")
                return response
            case let other:
                throw HTTPError(.badRequest, code: "invalid_format", detail: "format is json or csv, not \(other)")
            }
        }))
        return router
    }

    /// What a report route reads itself, besides its query's parameters.
    static let reportRouteNames: Set<String> = ["format", "in"]

    /// A report route's answer; with `into` (`?in=CUR`), revenue and MRR converted at `rates`.
    func report(_ name: String, _ reader: LedgerReader, _ parameters: HTTPQuerySource, _ now: Int64, into target: String?) throws -> ReportDocument {
        let query = try ReportQuery(name: name, parameters, now: now)
        guard let target, !target.isEmpty else {
            switch query {
            case .revenue(let query): return .revenue(try reader.revenue(query))
            case .mrr(let query):
                if let series = query.series { return .mrrSeries(try reader.mrr(series, query)) }
                return .mrr(try reader.mrr(query))
            case .churn(let query): return .churn(try reader.churn(query))
            case .cohorts(let query): return .cohorts(try reader.cohorts(query))
            }
        }
        let rates = try Self.conversionRates(rates, into: target)
        switch query {
        case .revenue(let query): return .revenue(try reader.revenue(query).converted(into: target.uppercased(), rates: rates))
        case .mrr(let query):
            if let series = query.series { return .mrrSeries(try reader.mrr(series, query).converted(into: target.uppercased(), rates: rates)) }
            return .mrr(try reader.mrr(query).converted(into: target.uppercased(), rates: rates))
        case .churn, .cohorts:
            throw QueryError(kind: .badParameter, code: "invalid_parameter", detail: "in= converts money: revenue and mrr take it, \(name) does not")
        }
    }

    /// The rates to convert into `target`, which must be a currency code (`in=US` got a 400
    /// asking for a rate line no rates file can hold).
    static func conversionRates(_ rates: CurrencyRates?, into target: String) throws(QueryError) -> CurrencyRates {
        guard CurrencyRates.isCode(target) else {
            throw QueryError(kind: .badParameter, code: "invalid_parameter", detail: "in= takes a currency code such as USD, not '\(target)'")
        }
        guard let rates else {
            throw QueryError(kind: .badParameter, code: "no_rates", detail: "in= needs monthly rates: start serve with --rates FILE (docs/currency.md)")
        }
        return rates
    }

    /// A read: the query string parsed by the same query types as the CLI's flags, answered as
    /// the contract's JSON (its errors answered by ``reading(_:)``).
    /// A name no parser asked for, and not among `routeNames`, is a 400 (`unknown_parameter`).
    func answer(_ request: HTTPRequest, routeNames: Set<String> = [], _ body: (LedgerReader, HTTPQuerySource, Int64) throws -> String) throws -> HTTPResponse {
        let parameters = HTTPQuerySource(request.query)
        try parameters.requireOnce()
        return .json(try ledger.read { reader in
            let answer: String
            do { answer = try body(reader, parameters, WallTime.nowMillis()) } catch let error as QueryError where error.kind == .notFound {
                // Parsed whole, then nothing found: a name misspelt is the likelier news.
                try parameters.requireEveryNameAsked(besides: routeNames)
                throw error
            }
            try parameters.requireEveryNameAsked(besides: routeNames)
            return answer
        })
    }

    /// Read routes need the bearer token when one is configured (always, off loopback), and
    /// without one answer only requests addressed to a loopback name (`LoopbackHost`).
    func protected(_ handler: @escaping Router.Handler) -> Router.Handler {
        // Errors too: they echo what was asked (a customer id).
        let confidential: Router.Handler = { request in
            do {
                var response = try handler(request)
                response.headers.markPrivate()
                return response
            } catch var error as HTTPError {
                error.headers.markPrivate()
                throw error
            }
        }
        guard let authenticator else { return LoopbackHost.protect(confidential) }
        return authenticator.protect(confidential)
    }

    /// The dashboard; `/?token=T` logs a browser in: a 303 back to `/` (keeping the other
    /// parameters) that sets the token as an HttpOnly cookie, so it leaves the address bar.
    func dashboard(_ request: HTTPRequest) throws -> HTTPResponse {
        // A query string's `+` reads as a space, and a token has none: `?token=ab+c` is `ab+c`
        // (base64 tokens often hold a `+`).
        guard let token = request.query["token"].map({ String($0.map { $0 == " " ? "+" : $0 }) }) else {
            return try protected { request in
                .html(try self.ledger.read { reader in
                    try Dashboard(reader: reader, query: request.query, now: WallTime.nowMillis(), rates: self.rates).render(customerId: request.query["customer"])
                })
            }(request)
        }
        var response = HTTPResponse(status: .seeOther)
        if let authenticator {
            var probe = request
            probe.headers = ["Authorization": "Bearer " + token]
            guard authenticator.isAuthorized(probe) else {
                throw BearerTokenAuthenticator.refusal("the token is not the server's API token")
            }
            // Behind a TLS proxy that says so, the browser must never send the token over plain HTTP.
            let secure = request.headers["X-Forwarded-Proto"]?.lowercased() == "https" ? "; Secure" : ""
            response.headers.set("Set-Cookie", "\(BearerTokenAuthenticator.cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict\(secure)")
        }
        let rest = request.query.filter { $0.name != "token" }.map { percentEncode($0.name) + "=" + percentEncode($0.value) }
        response.headers.set("Location", rest.isEmpty ? "/" : "/?" + rest.joined(separator: "&"))
        return response
    }

    /// Answers once the message is stored and folded, from the thread that committed the fold;
    /// the worker that verified it returns at once.
    func receive(_ request: HTTPRequest, completion: @escaping HTTPCompletion) {
        let started = WallTime.monotonicSeconds()
        ledger.ingest(IngestLine(bytes: request.body, line: 1, source: IngestLine.webhookSource), recordedAt: WallTime.nowMillis()) { [self] result in
            completion(Result { try answer(result, since: started) })
        }
    }

    private func answer(_ result: Result<IngestOutcome, any Error>, since started: Double) throws -> HTTPResponse {
        let outcome: IngestOutcome
        do {
            outcome = try result.get()
        } catch let unavailable as IngestionUnavailable {
            ingested.increment(labels: ["unavailable"])
            throw Self.unavailable(unavailable)
        } catch {
            ingested.increment(labels: ["unavailable"])
            throw HTTPError(.serviceUnavailable, code: "storage_unavailable", detail: "the message was not stored (\(error)); the App Store will retry")
        }
        appendLatency.observe(WallTime.monotonicSeconds() - started)
        switch outcome {
        case .appended(let position):
            ingested.increment(labels: ["appended"])
            feed.notify()
            return stored("appended", at: position)
        case .duplicate(let position):
            ingested.increment(labels: ["duplicate"])
            return stored("duplicate", at: position)
        case .rejected(let reason, let detail):
            ingested.increment(labels: [reason])
            // Bad JSON or not a JWS is the sender's mistake (400); a failed verification is 422.
            let status: HTTPStatus = reason == "malformed_json" || reason == "not_jws" ? .badRequest : .unprocessableContent
            throw HTTPError(status, code: reason, detail: detail)
        }
    }

    private func stored(_ status: String, at position: String) -> HTTPResponse {
        var response = HTTPResponse.json(JSON.object([("status", .string(status)), ("position", .string(position))]).serialized())
        response.outcome = status
        return response
    }

    func renderMetrics() -> HTTPResponse {
        scraping.withLock { _ in
            // A gauge that cannot be read now keeps its last value: 0 would read as an empty log,
            // and a lag of 0 hides a real one.
            let log = try? LogReader(directory: ledger.layout.log).summary()
            let gauges: [(String, String, Double?)] = [
                ("subledger_log_bytes", "Bytes in the event log", log.map { Double($0.bytes) }),
                ("subledger_evidence_bytes", "Bytes in the evidence log", (try? LogReader(directory: ledger.layout.evidence).summary().bytes).map(Double.init)),
                ("subledger_events", "Events in the log", log.map { Double($0.records) }),
                ("subledger_projection_lag_events", "Events in the log not folded into the projection yet",
                 log.map { Double(max(0, Int($0.records) - ledger.foldedEvents)) }),
                ("subledger_quarantined", "Rejected messages kept in quarantine", (try? ledger.quarantinedCount()).map(Double.init)),
                ("subledger_projection_bytes", "Bytes in use of the projection database (a rebuild writes about as many beside it)",
                 ledger.projectionBytes.map(Double.init)),
                ("subledger_disk_free_bytes", "Bytes the server's user can still write on the data directory's file system",
                 FileSystemSpace.available(at: ledger.directory).map(Double.init)),
                ("subledger_backup_last_success_timestamp_seconds", "When the last backup of the data directory completed and verified (Unix time)",
                 LastBackup.load(directory: ledger.directory).map { Double($0.completedAt) / 1000 }),
            ]
            for (name, help, value) in gauges {
                let gauge = metrics.gauge(name, help: help)
                if let value { gauge.set(value) }
            }
            quarantineNotKept.advance(to: Double(ledger.quarantineNotKept))
            foldFailures.advance(to: Double(ledger.projectionFoldFailures))
            var response = HTTPResponse.text(metrics.render())
            response.headers.set("Content-Type", Metrics.contentType)
            return response
        }
    }
}
