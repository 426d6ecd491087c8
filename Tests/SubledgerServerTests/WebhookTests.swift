import Foundation
import SubledgerHTTP
import SubledgerJWS
import SubledgerLedger
import SubledgerLog
import SubledgerProjections
import SubledgerServer
import SubledgerTestSupport
import Synchronization
import Testing

/// A ledger trusting a fresh test PKI, served by `LedgerServer`'s router (no socket: the
/// protocol is SubledgerHTTP's business, tested there).
struct WebhookFixture {
    let directory = TemporaryDirectory()
    let pki: TestPKI
    let fixtures: AppStoreFixtures
    let server: LedgerServer

    init(token: String? = nil, rates: CurrencyRates? = nil) throws {
        let start: Int64 = 1_767_225_600_000
        pki = try TestPKI(validity: (start - 86_400_000)...(start + 400 * 86_400_000))
        fixtures = AppStoreFixtures(pki: pki, environment: .production)
        let root = directory.file("root.cer")
        try Data(pki.rootDER).write(to: URL(fileURLWithPath: root))
        _ = try Ledger.initialize(directory: directory.file("data"), bundleId: fixtures.bundleId, appAppleId: fixtures.appAppleId, environments: ["Production"], rootFiles: [root], smallBusiness: false, catalogFile: nil)
        server = LedgerServer(ledger: try Ledger(directory: directory.file("data")), token: token, rates: rates)
    }

    func notification(_ index: Int = 1) -> [UInt8] {
        let transaction = fixtures.transaction(transactionId: String(2_000_000_000_000_000 + index))
        return fixtures.notification(.didRenew, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction)).webhookBody
    }

    /// A GET without a token (the fixture's server has none unless given).
    func get(_ target: String) throws -> (status: Int, json: [String: Any]) {
        try respond(HTTPRequest(method: "GET", target: target, headers: HTTPHeaders()))
    }

    func post(_ body: [UInt8]) throws -> (status: Int, json: [String: Any]) {
        try respond(HTTPRequest(method: "POST", target: "/v1/notifications/appstore", body: body))
    }

    func respond(_ request: HTTPRequest) throws -> (status: Int, json: [String: Any]) {
        let response: HTTPResponse
        do {
            response = try server.router.respond(to: request)
        } catch let error as HTTPError {
            response = .error(error.status, code: error.code, detail: error.detail)
        }
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
        return (response.status.code, json)
    }
}

@Suite("App Store webhook")
struct WebhookTests {
    @Test("a genuine notification is 200 appended once it is in the log; sending it again is 200 duplicate, with the same position")
    func appendThenDuplicate() throws {
        let fixture = try WebhookFixture()
        defer { fixture.server.ledger.close() }
        let body = fixture.notification()
        let first = try fixture.post(body)
        #expect(first.status == 200)
        #expect(first.json["status"] as? String == "appended")
        let position = try #require((first.json["position"] as? String).flatMap { LogPosition($0) })
        let record = try LogReader(directory: fixture.directory.file("data/log")).record(at: position)
        #expect(record.kind == Ledger.eventKind)
        let again = try fixture.post(body)
        #expect(again.status == 200)
        #expect(again.json["status"] as? String == "duplicate")
        #expect(again.json["position"] as? String == first.json["position"] as? String)
    }

    @Test("a forged notification is 422 with the reason, and quarantined")
    func forgedIs422() throws {
        let fixture = try WebhookFixture()
        defer { fixture.server.ledger.close() }
        let other = AppStoreFixtures(pki: try TestPKI(validity: 1_700_000_000_000...1_900_000_000_000), environment: .production)
        let transaction = other.transaction()
        let forged = other.notification(.didRenew, transaction: transaction, renewal: other.renewalInfo(for: transaction)).webhookBody
        let response = try fixture.post(forged)
        #expect(response.status == 422)
        #expect(response.json["error"] as? String == "chain_untrusted")
        #expect(try Ledger.quarantined(directory: fixture.server.ledger.layout.root).count == 1)
    }

    @Test("a bare renewal info is 422 and nothing is appended: it names no app, so anyone's would verify")
    func bareRenewalInfoIs422() throws {
        let fixture = try WebhookFixture()
        defer { fixture.server.ledger.close() }
        let renewal = fixture.fixtures.renewalInfo(for: fixture.fixtures.transaction())
        let response = try fixture.post(Array(fixture.fixtures.signedRenewalInfo(renewal).utf8))
        #expect(response.status == 422)
        #expect(response.json["error"] as? String == "payload_invalid")
        #expect(try LogReader(directory: fixture.directory.file("data/log")).summary().records == 0)
    }

    @Test("bad JSON and non-JWS bodies are 400 and not kept: the route is open, and kept they could fill the disk")
    func badBodiesAre400() throws {
        let fixture = try WebhookFixture()
        defer { fixture.server.ledger.close() }
        #expect(try fixture.post(Array("{\"signedPayload\":".utf8)).status == 400)
        #expect(try fixture.post(Array("{\"signedPayload\":\"abc\"}".utf8)).status == 400)
        #expect(try fixture.post(Array(repeating: UInt8(ascii: "x"), count: 1 << 19)).status == 400)
        // An empty body is named as such, not as a JWS of one part.
        let empty = try fixture.post([])
        #expect(empty.status == 400 && empty.json["error"] as? String == "not_jws")
        #expect((empty.json["detail"] as? String)?.hasPrefix("the body is empty") == true, "\(empty.json)")
        #expect(try Ledger.quarantined(directory: fixture.server.ledger.layout.root).isEmpty)
    }

    static let start: Int64 = 1_767_225_600_000

    /// Sandbox messages signed by a fresh test PKI, and its root's file in `directory`.
    static func sandboxFixtures(in directory: TemporaryDirectory) throws -> (AppStoreFixtures, root: String) {
        let pki = try TestPKI(validity: (start - 86_400_000)...(start + 400 * 86_400_000))
        let root = directory.file("root.cer")
        try Data(pki.rootDER).write(to: URL(fileURLWithPath: root))
        return (AppStoreFixtures(pki: pki, environment: .sandbox), root)
    }

    @Test("a notification answered 422 and quarantined, delivered again by the App Store after the fix, is appended and its entry resolved")
    func retryAfterFixResolvesQuarantine() throws {
        let directory = TemporaryDirectory()
        let (fixtures, root) = try Self.sandboxFixtures(in: directory)
        let start = Self.start
        let transaction = fixtures.transaction(purchaseDate: start)
        let body = fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction)).webhookBody
        func post(environments: [String]) throws -> Int {
            _ = try Ledger.initialize(directory: directory.file("data"), bundleId: fixtures.bundleId, appAppleId: fixtures.appAppleId,
                                      environments: environments, rootFiles: [root], smallBusiness: false, catalogFile: nil)
            let server = LedgerServer(ledger: try Ledger(directory: directory.file("data")), token: nil)
            defer { server.ledger.close() }
            do { return try server.router.respond(to: HTTPRequest(method: "POST", target: "/v1/notifications/appstore", body: body)).status.code } catch let error as HTTPError {
                return error.status.code
            }
        }
        #expect(try post(environments: ["Production"]) == 422)
        #expect(try Ledger.quarantined(directory: directory.file("data")).count == 1)
        #expect(try post(environments: ["Production", "Sandbox"]) == 200)
        #expect(try Ledger.quarantined(directory: directory.file("data")).isEmpty)
    }

    @Test("/metrics counts unresolved quarantine entries from what the server holds, not by reading the quarantine at each scrape: anyone can fill it to a GiB")
    func quarantinedCountHeldInMemory() throws {
        let directory = TemporaryDirectory()
        let (fixtures, root) = try Self.sandboxFixtures(in: directory)
        let start = Self.start
        let bodies = ["2000000000000901", "2000000000000902"].map { id in
            let transaction = fixtures.transaction(transactionId: id, purchaseDate: start)
            return fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction)).webhookBody
        }
        _ = try Ledger.initialize(directory: directory.file("data"), bundleId: fixtures.bundleId, appAppleId: fixtures.appAppleId,
                                  environments: ["Production"], rootFiles: [root], smallBusiness: false, catalogFile: nil)
        let server = LedgerServer(ledger: try Ledger(directory: directory.file("data")), token: nil)
        defer { server.ledger.close() }
        func quarantined() throws -> String? {
            let text = String(decoding: try server.router.respond(to: HTTPRequest(method: "GET", target: "/metrics")).body, as: UTF8.self)
            return text.split(separator: "\n").first { $0.hasPrefix("subledger_quarantined ") }.map { String($0.dropFirst("subledger_quarantined ".count)) }
        }
        func post(_ body: [UInt8]) throws -> Int {
            do { return try server.router.respond(to: HTTPRequest(method: "POST", target: "/v1/notifications/appstore", body: body)).status.code } catch let error as HTTPError {
                return error.status.code
            }
        }
        #expect(try quarantined() == "0")
        #expect(try bodies.map(post) == [422, 422])
        #expect(try post(bodies[0]) == 422, "the App Store's retry: kept once")
        #expect(try quarantined() == "2")
        #expect(try Ledger.quarantinedCount(directory: directory.file("data")) == 2, "as a read of the quarantine counts")
        // Scrapes no longer read the quarantine: with its files moved away they still answer.
        let quarantine = directory.file("data/quarantine")
        for file in try FileManager.default.contentsOfDirectory(atPath: quarantine) {
            try FileManager.default.moveItem(atPath: quarantine + "/" + file, toPath: directory.file("moved-" + file))
        }
        #expect(try quarantined() == "2")
    }

    @Test("storage that is unavailable answers 503 so the App Store retries")
    func closedLogIs503() throws {
        let fixture = try WebhookFixture()
        fixture.server.ledger.close()
        let response = try fixture.post(fixture.notification())
        #expect(response.status == 503)
        #expect(response.json["error"] as? String == "storage_unavailable")
    }

    @Test("the last backup's time is a gauge read at each scrape from the note a backup leaves in the ledger: no sample until one has completed")
    func lastBackupGauge() throws {
        let fixture = try WebhookFixture()
        defer { fixture.server.ledger.close() }
        func scraped() throws -> String? {
            let text = String(decoding: try fixture.server.router.respond(to: HTTPRequest(method: "GET", target: "/metrics")).body, as: UTF8.self)
            return text.split(separator: "\n").first { $0.hasPrefix("subledger_backup_last_success_timestamp_seconds ") }.map(String.init)
        }
        #expect(try fixture.post(fixture.notification()).status == 200)
        #expect(try scraped() == nil)
        // As a backup run beside the server (another process: this one has the databases open) notes it.
        let note = LastBackup(completedAt: 1_796_000_000_123, to: "/var/backups/subledger", logEnd: .start)
        try JSONEncoder().encode(note).write(to: URL(fileURLWithPath: fixture.server.ledger.layout.lastBackup))
        #expect(try scraped() == "subledger_backup_last_success_timestamp_seconds 1796000000.123")
    }

    @Test("the projection database's bytes in use and the data directory's free disk are gauges, so an alert can say when a rebuild would not fit")
    func roomForARebuildGauges() throws {
        let fixture = try WebhookFixture()
        defer { fixture.server.ledger.close() }
        #expect(try fixture.post(fixture.notification()).status == 200)
        _ = try fixture.server.ledger.read { try $0.projections.summary() }
        let text = String(decoding: try fixture.server.router.respond(to: HTTPRequest(method: "GET", target: "/metrics")).body, as: UTF8.self)
        func value(_ name: String) -> Double? {
            text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
        }
        let projection = try #require(value("subledger_projection_bytes"))
        #expect(projection == Double(try #require(fixture.server.ledger.projectionBytes)) && projection >= 4096)
        var info = statvfs()
        #expect(statvfs(fixture.server.ledger.directory, &info) == 0)
        let free = try #require(value("subledger_disk_free_bytes"))
        #expect(free > 0 && free <= Double(info.f_blocks) * Double(info.f_frsize))
    }

    @Test("metrics need the token when one is configured, count webhook outcomes and show the projection lag; healthz never does")
    func metricsAndHealth() throws {
        let fixture = try WebhookFixture(token: "s3cret")
        defer { fixture.server.ledger.close() }
        _ = try fixture.post(fixture.notification())
        #expect(try fixture.respond(HTTPRequest(method: "GET", target: "/metrics")).status == 401)
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer wrong")
        #expect(try fixture.respond(HTTPRequest(method: "GET", target: "/metrics", headers: headers)).status == 401)
        headers = HTTPHeaders()
        headers.add("Authorization", "Bearer s3cret")
        let response = try fixture.server.router.respond(to: HTTPRequest(method: "GET", target: "/metrics", headers: headers))
        let text = String(decoding: response.body, as: UTF8.self)
        #expect(text.contains("subledger_notifications_total{outcome=\"appended\"} 1"))
        #expect(text.contains("subledger_events 1"))
        #expect(text.contains("# TYPE subledger_quarantine_not_kept_total counter\nsubledger_quarantine_not_kept_total 0"))
        // Outcomes not seen yet are series at zero, so a rate of rejections is 0 rather than no data.
        #expect(text.contains("subledger_notifications_total{outcome=\"signature_invalid\"} 0"))
        #expect(text.contains("subledger_notifications_total{outcome=\"duplicate\"} 0"))
        // A read folds what was acknowledged, so the projection is no longer behind the log.
        _ = try fixture.server.ledger.read { try $0.projections.summary().events }
        let after = String(decoding: try fixture.server.router.respond(to: HTTPRequest(method: "GET", target: "/metrics", headers: headers)).body, as: UTF8.self)
        #expect(after.contains("subledger_projection_lag_events 0"))
        let probes = LedgerServer.httpConfiguration(host: "127.0.0.1", port: 0)
        #expect(probes.livenessPath == "/healthz" && probes.readinessPath == "/readyz")
    }
}

@Suite("App Store webhook under concurrency")
struct WebhookConcurrencyTests {
    @Test("concurrent deliveries are each stored once; concurrent copies of one message give one append and duplicates")
    func concurrentDeliveries() throws {
        let fixture = try WebhookFixture()
        defer { fixture.server.ledger.close() }
        let bodies = (0..<48).map { fixture.notification($0) }
        let copy = fixture.notification(999)
        let statuses = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 64) { i in
            let body = i < 48 ? bodies[i] : copy
            let json = (try? fixture.post(body).json) ?? [:]
            let status = json["status"] as? String ?? "error"
            statuses.withLock { $0.append(i < 48 ? "distinct:" + status : "copy:" + status + "@" + (json["position"] as? String ?? "none")) }
        }
        let all = statuses.withLock { $0 }.map { $0.split(separator: "@").first.map(String.init)! }
        // Every copy answers with the one position the copy was stored at.
        #expect(Set(statuses.withLock { $0 }.filter { $0.hasPrefix("copy:") }.map { $0.split(separator: "@").last! }).count == 1)
        #expect(all.filter { $0 == "distinct:appended" }.count == 48)
        #expect(all.filter { $0 == "copy:appended" }.count == 1)
        #expect(all.filter { $0 == "copy:duplicate" }.count == 15)
        #expect(try LogReader(directory: fixture.directory.file("data/log")).summary().records == 49)
    }
}

@Suite("Read API")
struct ReadAPITests {
    @Test("customer, history and reports answer as the contract says, need the token, and name bad parameters")
    func readRoutes() throws {
        let fixture = try WebhookFixture(token: "t0ken")
        defer { fixture.server.ledger.close() }
        let start: Int64 = 1_767_225_600_000
        let transaction = fixture.fixtures.transaction(transactionId: "2000000000000777", purchaseDate: start)
        #expect(try fixture.post(fixture.fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixture.fixtures.renewalInfo(for: transaction)).webhookBody).status == 200)
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer t0ken")
        func get(_ target: String, authorized: Bool = true) throws -> (status: Int, json: [String: Any]) {
            try fixture.respond(HTTPRequest(method: "GET", target: target, headers: authorized ? headers : HTTPHeaders()))
        }
        for target in ["/v1/customers/2000000000000777", "/v1/customers/2000000000000777/history", "/v1/reports/mrr", "/metrics"] {
            #expect(try get(target, authorized: false).status == 401, "\(target)")
        }
        let customer = try get("/v1/customers/2000000000000777?asOf=2026-01-15T00:00:00Z")
        #expect(customer.status == 200)
        let subscription = try #require((customer.json["subscriptions"] as? [[String: Any]])?.first)
        #expect(subscription["status"] as? String == "active")
        #expect(subscription["expiresAt"] as? String == "2026-01-31T00:00:00.000Z")
        #expect(subscription["lastEventPosition"] == nil)
        let history = try get("/v1/customers/2000000000000777/history?raw=1")
        let event = try #require((history.json["events"] as? [[String: Any]])?.first)
        #expect(event["type"] as? String == "subscriptionStarted")
        #expect((event["signedPayload"] as? String)?.split(separator: ".").count == 3)
        // Asked for, the state names that event: where its evidence ends.
        let evidenced = try get("/v1/customers/2000000000000777?asOf=2026-01-15T00:00:00Z&evidence=1")
        #expect((evidenced.json["subscriptions"] as? [[String: Any]])?.first?["lastEventPosition"] as? String == event["position"] as? String)
        let revenue = try get("/v1/reports/revenue?from=2026-01-01&to=2026-01-31")
        #expect(revenue.status == 200)
        #expect((revenue.json["rows"] as? [[String: Any]])?.first?["grossSales"] as? Int == 9990)
        #expect(try get("/v1/customers/nobody").status == 404)
        // Known in Production only: the answer names the environment it was asked for.
        let elsewhere = try get("/v1/customers/2000000000000777?environment=Sandbox")
        #expect(elsewhere.status == 404)
        #expect((elsewhere.json["detail"] as? String)?.contains("2000000000000777 in the Sandbox environment as of") == true)
        #expect(try get("/v1/reports/revenue?from=yesterday&to=2026-01-31").status == 400)
        #expect(try get("/v1/reports/weather").status == 404)
    }

    @Test("a window that ends before it starts is 400 naming `to`, and the server goes on answering")
    func reversedWindows() throws {
        let fixture = try WebhookFixture()
        defer { fixture.server.ledger.close() }
        let transaction = fixture.fixtures.transaction(transactionId: "2000000000000778", purchaseDate: 1_767_225_600_000)
        #expect(try fixture.post(fixture.fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixture.fixtures.renewalInfo(for: transaction)).webhookBody).status == 200)
        for target in ["/v1/customers/2000000000000778/history?from=2026-11-01&to=2026-10-01", "/v1/reports/revenue?from=2026-03-01&to=2026-02-01",
                       "/v1/reports/churn?from=2026-03-01&to=2026-02-01", "/v1/reports/cohorts?from=2026-03&to=2026-01"] {
            let response = try fixture.get(target)
            #expect(response.status == 400, "\(target)")
            #expect(response.json["error"] as? String == "invalid_to", "\(target)")
        }
        #expect(try fixture.get("/v1/customers/2000000000000778/history").status == 200)
    }

    @Test("a parameter the route does not take is 400 naming it and what the route takes, rather than ignored; the commands' spelling of one it takes is that one")
    func unknownParameters() throws {
        let fixture = try WebhookFixture()
        defer { fixture.server.ledger.close() }
        // The contract: the report routes take the same query parameters as the commands.
        #expect(try fixture.post(fixture.notification(1)).status == 200)
        let head = try fixture.get("/v1/head").json
        let end = try #require(head["logEnd"] as? String, "\(head)")
        let report = "/v1/reports/revenue?from=2026-01-01&to=2026-03-31&"
        let cliSpelling = try fixture.get(report + "at-position=\(end)&by-product=1")
        #expect(cliSpelling.status == 200, "\(cliSpelling.json)")
        #expect(NSDictionary(dictionary: cliSpelling.json) == NSDictionary(dictionary: try fixture.get(report + "atPosition=\(end)&byProduct=1").json))
        #expect(cliSpelling.json["atPosition"] as? String == end)
        #expect(try fixture.get(report + "at-position=\(end)&atPosition=\(end)").json["error"] as? String == "invalid_position", "given twice")
        // Named as the request wrote it; a hyphen at an end or doubled is no command's spelling.
        let history = try fixture.get("/v1/customers/2000000000000001/history?as-of=2026-01-01")
        #expect((history.json["detail"] as? String)?.hasPrefix("as-of is not a parameter") == true, "\(history.json)")
        for name in ["-format", "in-", "by--product"] {
            #expect(try fixture.get(report + "\(name)=json").json["error"] as? String == "unknown_parameter", "\(name)")
        }
        for target in ["/v1/customers/2000000000000001?at=56", "/v1/customers/2000000000000001/history?as-of=2026-01-01",
                       "/v1/events?typ=renewed", "/v1/events/stream?customr=x", "/v1/events/stream?limit=2", "/v1/reports/mrr?by-product=1"] {
            let response = try fixture.get(target)
            #expect(response.status == 400, "\(target)")
            #expect(response.json["error"] as? String == "unknown_parameter", "\(target)")
        }
        for target in ["/v1/reports/revenue?from=2026-01-01&to=2026-03-31&byProduct=1&format=json", "/v1/reports/mrr?at=2026-01-15&environment=Production",
                       "/v1/events?type=renewed&limit=5&raw", "/v1/events?raw=false&reverify=0"] {
            #expect(try fixture.get(target).status == 200, "\(target)")
        }
        // A switch is 1/0 or true/false: `raw=yes` was taken as off, leaving the evidence out.
        for (target, code) in [("/v1/events?raw=yes", "invalid_raw"), ("/v1/customers/2000000000000001/history?raw=2", "invalid_raw"),
                               ("/v1/events?reverify=on", "invalid_reverify"), ("/v1/reports/revenue?from=2026-01-01&to=2026-03-31&byProduct=yes", "invalid_byProduct")] {
            let response = try fixture.get(target)
            #expect(response.status == 400 && response.json["error"] as? String == code, "\(target)")
        }
    }

    @Test("an environment is matched in any case, and one no ledger can hold is 400")
    func environmentNames() throws {
        let fixture = try WebhookFixture()
        defer { fixture.server.ledger.close() }
        let lower = try fixture.get("/v1/reports/mrr?at=2026-01-15&environment=production")
        #expect(lower.status == 200)
        #expect(lower.json["environment"] as? String == "Production")
        let unknown = try fixture.get("/v1/reports/mrr?environment=Staging")
        #expect(unknown.status == 400)
        #expect(unknown.json["error"] as? String == "invalid_environment")
    }
}
