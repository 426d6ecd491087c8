import Foundation
import SubledgerAppStore
import SubledgerHTTP
import SubledgerLedger
import SubledgerProjections
@testable import SubledgerServer
import SubledgerTestSupport
import Testing

@Suite("Dashboard")
struct DashboardTests {
    static let token = "dash-t0ken"
    static let january: Int64 = 1_767_225_600_000  // 2026-01-01T00:00:00Z
    static let day: Int64 = 86_400_000

    /// Three USD subscriptions started in January, February and March, one EUR one in February,
    /// and each January one renewed in February.
    static func ledgerWithSubscriptions(rates: CurrencyRates? = nil) throws -> WebhookFixture {
        let fixture = try WebhookFixture(token: token, rates: rates)
        let fixtures = fixture.fixtures
        let starts: [(id: String, at: Int64, currency: String, price: Int64)] = [
            ("2000000000000101", january + 2 * day, "USD", 9990),
            ("2000000000000102", january + 33 * day, "USD", 4990),
            ("2000000000000103", january + 40 * day, "EUR", 8990),
            ("2000000000000104", january + 65 * day, "USD", 19990),
        ]
        for start in starts {
            let transaction = fixtures.transaction(transactionId: start.id, purchaseDate: start.at, price: start.price, currency: start.currency)
            let body = fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction)).webhookBody
            #expect(try fixture.post(body).status == 200)
        }
        let renewal = fixtures.transaction(
            transactionId: "2000000000000201", originalTransactionId: "2000000000000101", purchaseDate: january + 32 * day, price: 9990)
        let body = fixtures.notification(.didRenew, transaction: renewal, renewal: fixtures.renewalInfo(for: renewal)).webhookBody
        #expect(try fixture.post(body).status == 200)
        return fixture
    }

    static func get(_ fixture: WebhookFixture, _ target: String, cookie: String? = token) throws -> HTTPResponse {
        var headers = HTTPHeaders()
        if let cookie { headers.add("Cookie", "theme=dark; subledger_token=\(cookie)") }
        let request = try HTTPRequest(method: "GET", target: target, headers: headers)
        do {
            return try fixture.server.router.respond(to: request)
        } catch let error as HTTPError {
            return error.response
        }
    }

    static func json(_ fixture: WebhookFixture, _ target: String) throws -> [String: Any] {
        let response = try get(fixture, target)
        #expect(response.status.code == 200, "\(target)")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    /// `(metric, period, currency, value)` of every element with `data-period`.
    static func periodMetrics(_ html: String) throws -> [(metric: String, period: String, currency: String, value: Int64)] {
        let pattern = try NSRegularExpression(pattern: #"data-metric="(\w+)" data-period="([^"]*)" data-currency="([^"]*)" data-value="(-?\d+)""#)
        return pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)).map { match in
            func group(_ index: Int) -> String { String(html[Range(match.range(at: index), in: html)!]) }
            return (group(1), group(2), group(3), Int64(group(4))!)
        }
    }

    @Test("the dashboard's errors are pages a person reads, saying what to do, with the API's status")
    func errorsArePages() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        for target in ["/?period=custom&from=2026-03-10&to=2026-03-01", "/?period=custom&from=2026-02-30&to=2026-03-01", "/?period=bogus", "/?period=3m&period=12m", "/?currency=USD&currency=EUR"] {
            let response = try Self.get(fixture, target)
            let html = String(decoding: response.body, as: UTF8.self)
            #expect(response.status.code == 400, "\(target)")
            #expect(response.headers["Content-Type"]?.hasPrefix("text/html") == true, "\(target)")
            #expect(html.contains("data-error=\"invalid_") && html.contains("<a href=\"/\">Back to the dashboard</a>"), "\(target)")
            #expect(response.outcome?.hasPrefix("invalid_") == true, "the access log names the error, as for the API: \(target)")
        }
        // A currency this environment has no amount in shows the default, saying so (it showed zeros).
        let widened = String(decoding: try Self.get(fixture, "/?period=custom&from=2026-01-15&to=2026-03-20").body, as: UTF8.self)
        #expect(widened.contains("id=\"widened\">Asked for 2026-01-15 to 2026-03-20: a range over 62 days is shown in whole months, so this shows 2026-01-01 to 2026-03-31."))
        let unknown = String(decoding: try Self.get(fixture, "/?currency=XYZ").body, as: UTF8.self)
        #expect(unknown.contains("id=\"currency-notice\">No amounts in XYZ in Production: showing USD."))
        #expect(!unknown.contains("<option value=\"XYZ\""))
        let signedOut = try Self.get(fixture, "/", cookie: nil)
        #expect(signedOut.status.code == 401)
        #expect(signedOut.headers["WWW-Authenticate"] != nil)
        #expect(String(decoding: signedOut.body, as: UTF8.self).contains("<code>/?token=TOKEN</code> once"))
    }

    @Test("the dashboard needs the token: 401 without it, 200 HTML with the cookie; /?token= sets that cookie and redirects")
    func needsToken() throws {
        let fixture = try WebhookFixture(token: Self.token)
        defer { fixture.server.ledger.close() }
        #expect(try Self.get(fixture, "/", cookie: nil).status.code == 401)
        #expect(try Self.get(fixture, "/", cookie: "wrong").status.code == 401)
        let page = try Self.get(fixture, "/")
        #expect(page.status.code == 200)
        #expect(page.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(String(decoding: page.body, as: UTF8.self).hasPrefix("<!doctype html>"))

        let login = try Self.get(fixture, "/?token=\(Self.token)&currency=EUR", cookie: nil)
        #expect(login.status.code == 303)
        #expect(login.headers["Location"] == "/?currency=EUR")
        let cookie = try #require(login.headers["Set-Cookie"])
        #expect(cookie.hasPrefix("subledger_token=\(Self.token);"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && !cookie.contains("Secure"))
        let guessed = try Self.get(fixture, "/?token=guess", cookie: nil)
        #expect(guessed.status.code == 401)
        #expect(guessed.headers["WWW-Authenticate"] == #"Bearer realm="subledger""#, "RFC 9110 requires a challenge with every 401")
        // Behind a TLS proxy that says so, the cookie never travels over plain HTTP.
        var proxied = HTTPHeaders()
        proxied.add("X-Forwarded-Proto", "https")
        let behindTLS = try fixture.server.router.respond(to: HTTPRequest(method: "GET", target: "/?token=\(Self.token)", headers: proxied))
        #expect(behindTLS.headers["Set-Cookie"]?.hasSuffix("; Secure") == true)
    }

    @Test("the dashboard, its error pages and its sign-in forbid scripts, loading anything, framing and referrers, and are never cached; the API's answers are never cached or sniffed")
    func headersForbidWhatThePageNeverDoes() throws {
        let fixture = try WebhookFixture(token: Self.token)
        defer { fixture.server.ledger.close() }
        for (target, cookie) in [("/", Self.token), ("/?period=bogus", Self.token), ("/", nil), ("/?token=\(Self.token)", nil)] as [(String, String?)] {
            let response = try Self.get(fixture, target, cookie: cookie)
            let policy = try #require(response.headers["Content-Security-Policy"], "\(target)")
            #expect(policy.contains("default-src 'none'") && policy.contains("frame-ancestors 'none'") && !policy.contains("script-src"), "\(target)")
            #expect(response.headers["X-Frame-Options"] == "DENY" && response.headers["Referrer-Policy"] == "no-referrer", "\(target)")
            #expect(response.headers["Cache-Control"] == "no-store" && response.headers["X-Content-Type-Options"] == "nosniff", "\(target)")
        }
        _ = try fixture.post(fixture.notification())
        var authorized = HTTPHeaders()
        authorized.add("Authorization", "Bearer \(Self.token)")
        for (target, status) in [("/v1/head", 200), ("/v1/reports/revenue?from=2026-01-01&to=2026-01-31", 200), ("/metrics", 200), ("/v1/customers/someone", 404), ("/v1/reports/revenue?from=x", 400)] {
            let response: HTTPResponse
            do { response = try fixture.server.router.respond(to: HTTPRequest(method: "GET", target: target, headers: authorized)) } catch let error as HTTPError { response = error.response }
            #expect(response.status.code == status, "\(target)")
            #expect(response.headers["Cache-Control"] == "no-store" && response.headers["X-Content-Type-Options"] == "nosniff", "\(target)")
        }
    }

    @Test("a token with a + logs in through /?token= as written, though a query string reads + as a space")
    func tokenWithPlus() throws {
        let fixture = try WebhookFixture(token: "ab+c/d=")
        defer { fixture.server.ledger.close() }
        #expect(try Self.get(fixture, "/?token=ab+c/d=", cookie: nil).status.code == 303)
        #expect(try Self.get(fixture, "/?token=ab%2Bc%2Fd%3D", cookie: nil).status.code == 303)
        #expect(try Self.get(fixture, "/?token=ab%20c/d=", cookie: nil).status.code == 303)
        #expect(try Self.get(fixture, "/?token=abc/d=", cookie: nil).status.code == 401)
    }

    @Test("the dashboard takes an environment in any case and refuses one no ledger can hold, rather than showing zeros")
    func environmentNames() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        let page = try Self.get(fixture, "/?environment=production")
        #expect(page.status.code == 200)
        #expect(String(decoding: page.body, as: UTF8.self).contains("<option value=\"Production\" selected"))
        #expect(try Self.get(fixture, "/?environment=bogus").status.code == 400)
    }

    @Test("after ingesting notifications, every chart section has an SVG and its numbers equal the JSON reports")
    func numbersMatchTheAPI() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        let html = String(decoding: try Self.get(fixture, "/?currency=USD&environment=Production").body, as: UTF8.self)
        for section in ["mrr", "subscriptions", "commitments", "revenue", "churn", "trials", "cohorts"] {
            let start = try #require(html.range(of: "<section id=\"\(section)\""), "section \(section)")
            let end = try #require(html.range(of: "</section>", range: start.upperBound..<html.endIndex))
            #expect(html[start.lowerBound..<end.lowerBound].contains("<svg"), "section \(section) has a chart")
        }
        #expect(html.contains("<option value=\"EUR\">EUR</option>"), "the currencies present are offered")

        let metrics = try Self.periodMetrics(html)
        let gross = metrics.filter { $0.metric == "gross" }
        #expect(gross.count == 12)
        #expect(gross.last?.period == "2026-03", "the range ends at the latest month with data")
        let revenue = try Self.json(fixture, "/v1/reports/revenue?from=2025-04-01&to=2026-03-31")
        let rows = try #require(revenue["rows"] as? [[String: Any]])
        for cell in gross {
            let row = rows.first { $0["period"] as? String == cell.period && $0["currency"] as? String == "USD" }
            #expect(cell.value == Int64(row?["grossSales"] as? Int ?? 0), "gross \(cell.period)")
        }
        #expect(gross.contains { $0.period == "2026-02" && $0.value == 9990 + 4990 }, "February: a renewal and a new subscription")

        let summary = try NSRegularExpression(pattern: #"data-metric="mrr" data-currency="USD" data-at="([^"]+)" data-value="(-?\d+)""#)
        let match = try #require(summary.firstMatch(in: html, range: NSRange(html.startIndex..., in: html)))
        let at = String(html[Range(match.range(at: 1), in: html)!])
        let shown = Int64(html[Range(match.range(at: 2), in: html)!])!
        #expect(at == "2026-03-31T23:59:59.999Z")
        let mrr = try Self.json(fixture, "/v1/reports/mrr?at=\(at)")
        let usd = try #require((mrr["rows"] as? [[String: Any]])?.first { $0["currency"] as? String == "USD" })
        #expect(shown == Int64(try #require(usd["mrr"] as? Int)))
        #expect(shown > 0)
        #expect(html.contains(String(format: "%.2f USD", Double(shown) / 1000)), "amounts are shown in major units with the currency")
    }

    @Test("when nothing recent was recorded, the presets end at the last month with revenue and the page says so; a week after the last sale it says the webhook may have stopped; asked on a day inside the data, they end that day, unflagged")
    func stalePresetsAreFlagged() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        // The subscriptions are from January to March 2026, before this machine's today.
        let html = String(decoding: try Self.get(fixture, "/?period=30d").body, as: UTF8.self)
        #expect(html.contains("<p class=\"notice\" id=\"stale\">No revenue is recorded after 2026-03-31: this period ends there, not today"), "\(html.prefix(2000))")
        #expect(html.contains("Last 30 days: 2026-03-02 to 2026-03-31"))
        #expect(html.contains("the ledger may have stopped hearing from the App Store: check the webhook"), "over a week: a possible stall")
        let custom = String(decoding: try Self.get(fixture, "/?period=custom&from=2026-01-01&to=2026-01-31").body, as: UTF8.self)
        #expect(!custom.contains("id=\"stale\""), "a period asked for by its dates is what it says")

        // Asked on a day inside the data, the presets end that day.
        let march15 = Self.january + 73 * Self.day
        let fresh = try fixture.server.ledger.read { reader in
            try Dashboard(reader: reader, query: QueryParameters(decoding: "period=30d"), now: march15).render(customerId: nil)
        }
        #expect(!fresh.contains("id=\"stale\""))
        #expect(fresh.contains("Last 30 days: 2026-02-14 to 2026-03-15"))
        // The last sale is of 7 March. Five days later nothing is said; on 30 March, with "this
        // month" ending today, the silence is; on 3 April "this month" is March, saying so.
        func page(daysAfterNewYear days: Int64) throws -> String {
            try fixture.server.ledger.read { reader in
                try Dashboard(reader: reader, query: QueryParameters(decoding: "period=month"), now: Self.january + days * Self.day).render(customerId: nil)
            }
        }
        let march12 = try page(daysAfterNewYear: 70)
        #expect(!march12.contains("id=\"stale\"") && !march12.contains("id=\"quiet\""))
        let march30 = try page(daysAfterNewYear: 88)
        #expect(!march30.contains("id=\"stale\""))
        #expect(march30.contains("id=\"quiet\">The last sale or refund recorded was on 2026-03-07, 23 days ago."), "\(march30.prefix(2000))")
        let april3 = try page(daysAfterNewYear: 92)
        #expect(april3.contains("id=\"stale\">No revenue is recorded after 2026-03-31: this period ends there, not today (2026-04-03).</p>"), "\(april3.prefix(2000))")
        #expect(april3.contains("The last sale or refund recorded was on 2026-03-07, 27 days ago."))
        // Months that have not begun have no MRR: not the day's, drawn across them.
        let ahead = try fixture.server.ledger.read { reader in
            try Dashboard(reader: reader, query: QueryParameters(decoding: "period=custom&from=2026-01-01&to=2026-06-30"), now: march15).render(customerId: nil)
        }
        let mrr = try Self.periodMetrics(ahead).filter { $0.metric == "mrr" }
        #expect(mrr.map(\.period) == ["2026-01", "2026-02", "2026-03"], "\(mrr)")
        // The headline's MRR is the last begun month's, not a month to come's nothing.
        let headline = try #require(ahead.firstMatch(of: /data-metric="headline-mrr" data-currency="[^"]*" data-value="(-?\d+)"/))
        #expect(Int64(headline.1) == mrr.last?.value && mrr.last?.value ?? 0 > 0)
    }

    @Test("a gridline label of any width fits left of the plot: 80,000.00 and 8,000,000.00 are not cut at the chart's edge", arguments: [65_000.0, 7_000_000.0])
    func tickLabelsFit(value: Double) throws {
        let format = { (amount: Double) in Money(milliunits: Int64(amount * 1000), currency: "USD").formattedAmount }
        for chart in [Dashboard.lineChart(title: "MRR", labels: ["2026-01"], series: [.init(name: "MRR", color: "#000", values: [value])], format: format),
                      Dashboard.barChart(title: "Revenue", labels: ["2026-01"], series: [.init(name: "net", color: "#000", values: [value])], stacked: false, format: format)] {
            let ticks = chart.matches(of: /<text x="([0-9.]+)" y="[0-9.]+" text-anchor="end" class="tick">([0-9,.]+)<\/text>/)
            let tick = try #require(ticks.max { $0.2.count < $1.2.count })
            let widest = String(tick.2)
            #expect(ticks.contains { $0.2.hasPrefix(value < 1_000_000 ? "80,000.00" : "8,000,000.00") })
            // At the tick font's 8.4 units a character, the label starts inside the chart.
            #expect(Double(tick.1)! - 8.4 * Double(widest.count) >= 0, "\(tick.0)")
        }
    }

    @Test("the page says what its figures are: definitions, a revenue total that ties to the headline, a note on rounding, a family member's subscription as no revenue, and what to do on an empty ledger")
    func figuresSayWhatTheyAre() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        let fixtures = fixture.fixtures
        var shared = fixtures.transaction(transactionId: "2000000000000105", purchaseDate: Self.january + 50 * Self.day, price: 9990)
        shared.inAppOwnershipType = .familyShared
        #expect(try fixture.post(fixtures.notification(.subscribed, subtype: .initialBuy, transaction: shared, renewal: fixtures.renewalInfo(for: shared)).webhookBody).status == 200)
        let html = String(decoding: try Self.get(fixture, "/?period=custom&from=2026-01-01&to=2026-03-31&currency=USD&customer=2000000000000105").body, as: UTF8.self)
        #expect(html.contains("id=\"definitions\">MRR: the monthly value of the paid subscriptions entitled now"))
        #expect(html.contains("2026-01-01 to 2026-03-31 UTC"))
        let net = try Self.periodMetrics(html).filter { $0.metric == "net" }.reduce(0) { $0 + $1.value }
        #expect(try Self.headline(html)["net"]?.value == net)
        #expect(html.contains("<td><strong>Total</strong></td><td><strong>"), "the revenue table has a total row")
        #expect(html.contains("<td><strong>\(Money(milliunits: net, currency: "USD").formatted)</strong></td>"), "whose net is the headline's")
        #expect(html.contains("Gross − Refunds can differ from Net by a cent"))
        #expect(html.contains("family shared (not revenue)"))
        // The form's dates are the custom period's; under a preset they are empty, so dates typed take effect.
        #expect(html.contains("name=\"from\" value=\"2026-01-01\""))
        let preset = String(decoding: try Self.get(fixture, "/?period=12m").body, as: UTF8.self)
        #expect(preset.contains("name=\"from\" value=\"\"") && preset.contains("<option value=\"last-month\">Last month</option>"))

        let empty = try WebhookFixture(token: Self.token)
        defer { empty.server.ledger.close() }
        let nothing = String(decoding: try Self.get(empty, "/").body, as: UTF8.self)
        #expect(nothing.contains("id=\"empty\">Nothing is recorded in Production yet"))
        #expect(!html.contains("id=\"empty\""))
    }

    @Test("the middle gridline is as round as the top: a count chart up to 3 is drawn to 4, its middle 2; a label equal to one below it is left out")
    func gridlineLabelsAreExact() throws {
        let count: (Double) -> String = { String(Int64($0.rounded())) }
        func ticks(_ values: [Double]) -> [String] {
            Dashboard.barChart(title: "Trials", labels: values.indices.map { "2026-0\($0 + 1)" }, series: [.init(name: "started", color: "#000", values: values)], stacked: false, format: count)
                .matches(of: /text-anchor="end" class="tick">([^<]+)<\/text>/).map { String($0.1) }
        }
        #expect(ticks([1, 3]) == ["0", "2", "4"])
        #expect(ticks([0, 1]) == ["0", "1"], "½ would read 1")
        #expect(ticks([0, 0]) == ["0", "1"])
        let money: (Double) -> String = { Money(milliunits: Int64($0), currency: "USD").formattedAmount }
        let zeros = Dashboard.barChart(title: "Revenue", labels: ["2026-01"], series: [.init(name: "net", color: "#000", values: [0])], stacked: false, format: money)
        #expect(zeros.matches(of: /class="tick">0.00</).count == 1, "a chart of zero amounts says 0.00 once")
        #expect(ticks([5, 45]) == ["0", "30", "60"])
    }

    @Test("a customer id is escaped wherever the look-up shows it")
    func escapesCustomerId() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        let id = "<script>alert(\"x\")</script>"
        let target = "/?customer=" + id.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let html = String(decoding: try Self.get(fixture, target).body, as: UTF8.self)
        #expect(!html.contains("<script"))
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"))

        let known = String(decoding: try Self.get(fixture, "/?customer=2000000000000101").body, as: UTF8.self)
        #expect(known.contains("data-metric=\"status\">active<") || known.contains("data-metric=\"status\">expired<"))
        #expect(known.contains("href=\"/v1/customers/2000000000000101/history?raw=1&amp;environment=Production\""))
        // The look-up is of the page's environment, as every figure beside it.
        let elsewhere = String(decoding: try Self.get(fixture, "/?environment=Sandbox&customer=2000000000000101").body, as: UTF8.self)
        #expect(elsewhere.contains("No customer, originalTransactionId or transactionId 2000000000000101 in Sandbox."))
    }
    @Test("a customer looked up on a Sandbox page shows that environment's events, as its state, not their Production ones")
    func lookUpHistoryIsOfThePagesEnvironment() throws {
        let directory = TemporaryDirectory()
        let (sandbox, root) = try WebhookTests.sandboxFixtures(in: directory)
        _ = try Ledger.initialize(directory: directory.file("data"), bundleId: sandbox.bundleId, appAppleId: sandbox.appAppleId,
                                  environments: ["Production", "Sandbox"], rootFiles: [root], smallBusiness: false, catalogFile: nil)
        let server = LedgerServer(ledger: try Ledger(directory: directory.file("data")), token: nil)
        defer { server.ledger.close() }
        let tester = "aaaaaaaa-0000-4000-8000-000000000003"
        var production = sandbox
        production.environment = .production
        for (fixtures, id) in [(production, "2000000000000301"), (sandbox, "2000000000000302")] {
            var transaction = fixtures.transaction(transactionId: id, purchaseDate: WebhookTests.start + Self.day)
            transaction.appAccountToken = tester
            let body = fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction)).webhookBody
            #expect(try server.router.respond(to: HTTPRequest(method: "POST", target: "/v1/notifications/appstore", body: body)).status.code == 200)
        }
        let page = String(decoding: try server.router.respond(to: HTTPRequest(method: "GET", target: "/?environment=Sandbox&customer=\(tester)")).body, as: UTF8.self)
        #expect(page.contains("2000000000000302"))
        #expect(!page.contains("2000000000000301"), "the Production subscription's events are not on the Sandbox page")
        #expect(page.contains("/history?raw=1&amp;environment=Sandbox\""), "its evidence links ask for the page's environment too")
    }

    /// `(metric, value, previous)` of every headline card.
    static func headline(_ html: String) throws -> [String: (value: Int64, previous: Int64)] {
        let pattern = try NSRegularExpression(pattern: #"data-metric="headline-(\w+)" data-currency="[^"]*" data-value="(-?\d+)" data-previous="(-?\d+)""#)
        var cards: [String: (Int64, Int64)] = [:]
        for match in pattern.matches(in: html, range: NSRange(html.startIndex..., in: html)) {
            func group(_ index: Int) -> String { String(html[Range(match.range(at: index), in: html)!]) }
            cards[group(1)] = (Int64(group(2))!, Int64(group(3))!)
        }
        return cards
    }

    @Test("a custom period of days: one point per day, each equal to the report API by day")
    func dailyPeriod() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        let html = String(decoding: try Self.get(fixture, "/?period=custom&from=2026-02-01&to=2026-02-28&currency=USD").body, as: UTF8.self)
        let gross = try Self.periodMetrics(html).filter { $0.metric == "gross" }
        #expect(gross.count == 28)
        #expect(gross.first?.period == "2026-02-01" && gross.last?.period == "2026-02-28")
        let rows = try #require(try Self.json(fixture, "/v1/reports/revenue?from=2026-02-01&to=2026-02-28&by=day")["rows"] as? [[String: Any]])
        for cell in gross {
            let row = rows.first { $0["period"] as? String == cell.period && $0["currency"] as? String == "USD" }
            #expect(cell.value == Int64(row?["grossSales"] as? Int ?? 0), "gross \(cell.period)")
        }
        #expect(gross.contains { $0.period == "2026-02-02" && $0.value == 9990 }, "the renewal on 2 February")
        #expect(gross.contains { $0.period == "2026-02-03" && $0.value == 4990 }, "a new subscription on 3 February")
        #expect(html.contains("<option value=\"custom\" selected>"))
    }

    @Test("the headline numbers are the API's for the period and for the same length just before")
    func headlineNumbers() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        // 1 to 27 February by day; the 27 days before it are 5 to 31 January.
        let html = String(decoding: try Self.get(fixture, "/?period=custom&from=2026-02-01&to=2026-02-27&currency=USD").body, as: UTF8.self)
        let cards = try Self.headline(html)
        #expect(Set(cards.keys) == ["mrr", "activeSubscriptions", "newPaid", "churned", "net"])
        func usd(_ target: String, _ field: String) throws -> Int64 {
            let rows = try #require(try Self.json(fixture, target)["rows"] as? [[String: Any]])
            return Int64(rows.filter { $0["currency"] as? String ?? "USD" == "USD" }.map { $0[field] as! Int }.reduce(0, +))
        }
        #expect(cards["mrr"]?.value == (try usd("/v1/reports/mrr?at=2026-02-27T23:59:59.999Z", "mrr")))
        #expect(cards["mrr"]?.previous == (try usd("/v1/reports/mrr?at=2026-01-31T23:59:59.999Z", "mrr")))
        // Counts are of every currency, as churn's are: the EUR subscription of 10 February too.
        let active = try #require(try Self.json(fixture, "/v1/reports/mrr?at=2026-02-27T23:59:59.999Z")["rows"] as? [[String: Any]])
        #expect(cards["activeSubscriptions"]?.value == Int64(active.map { $0["activeSubscriptions"] as! Int }.reduce(0, +)))
        #expect(cards["activeSubscriptions"]?.value == 3)
        #expect(html.contains("Amounts: sales priced in USD only, not converted (EUR apart: choose the currency above); counts: subscriptions in every currency. Days and months are UTC."),
                "the page says which population each figure is of")
        #expect(cards["net"]?.value == (try usd("/v1/reports/revenue?from=2026-02-01&to=2026-02-27", "net")))
        #expect(cards["net"]?.previous == (try usd("/v1/reports/revenue?from=2026-01-05&to=2026-01-31", "net")))
        #expect(cards["net"]?.value == Int64(9990 + 4990))
        #expect(!html.contains("id=\"today\""), "a period in the past has no today")
        #expect(cards["net"]?.previous == Int64(0), "the only January sale was on the 3rd, before the 27 days compared")
        #expect(cards["newPaid"]?.value == (try usd("/v1/reports/churn?from=2026-02-01&to=2026-02-27", "newPaid")))
        #expect(html.contains("▲ (+14.98 USD) vs previous"), "the change of net revenue is shown")
        let lowercase = String(decoding: try Self.get(fixture, "/?period=custom&from=2026-02-01&to=2026-02-27&currency=usd").body, as: UTF8.self)
        #expect(try Self.headline(lowercase)["net"]?.value == cards["net"]?.value, "a currency in lower case is the same currency")
        // The whole of February is compared with the whole of January, as a month is read.
        let february = try Self.headline(String(decoding: try Self.get(fixture, "/?period=custom&from=2026-02-01&to=2026-02-28&currency=USD").body, as: UTF8.self))
        #expect(february["net"]?.previous == (try usd("/v1/reports/revenue?from=2026-01-01&to=2026-01-31", "net")))
        #expect(february["net"]?.previous == 9990)
    }

    @Test("a period that runs past today is compared with as many days of the period before as it has had, and the headline says which; one that has not begun says so and compares nothing")
    func periodsPastToday() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        // Midday on 10 March 2026, inside the fixture's data.
        let march10 = Self.january + 68 * Self.day + Self.day / 2
        func page(_ query: String) throws -> String {
            try fixture.server.ledger.read { reader in
                try Dashboard(reader: reader, query: QueryParameters(decoding: query + "&currency=USD"), now: march10).render(customerId: nil)
            }
        }
        func usdNet(_ from: String, _ to: String) throws -> Int64 {
            let rows = try #require(try Self.json(fixture, "/v1/reports/revenue?from=\(from)&to=\(to)")["rows"] as? [[String: Any]])
            return Int64(rows.filter { $0["currency"] as? String == "USD" }.map { $0["net"] as! Int }.reduce(0, +))
        }
        // 45 days by day, 23 whole ones had: the 45 before (from 1 January), cut to their first
        // 23, which hold the sale of 3 January.
        let days = try page("period=custom&from=2026-02-15&to=2026-03-31")
        #expect(days.contains("id=\"compared\">compared through 2026-03-09 with 2026-01-01 to 2026-01-23</span>"), "\(days.prefix(2000))")
        #expect(try Self.headline(days)["net"]?.previous == (try usdNet("2026-01-01", "2026-01-23")))
        #expect(try Self.headline(days)["net"]?.previous == 9990)
        // Widened to February to April: the three months before, cut at the same day of the month.
        let months = try page("period=custom&from=2026-02-01&to=2026-04-30")
        #expect(months.contains("id=\"compared\">compared through 2026-03-09 with 2025-11-01 to 2025-12-09</span>"), "\(months.prefix(2000))")
        // This month on its 10th: its 9 whole days against 1 to 9 February.
        let month = try page("period=month")
        #expect(month.contains("id=\"compared\">compared through 2026-03-09 with 2026-02-01 to 2026-02-09</span>"), "\(month.prefix(2000))")
        #expect(try Self.headline(month)["net"]?.previous == (try usdNet("2026-02-01", "2026-02-09")))

        let future = try page("period=custom&from=2026-04-01&to=2026-04-15")
        #expect(future.contains("id=\"not-begun\""))
        #expect(!future.contains("vs previous") && !future.contains("data-previous") && !future.contains("compared with"))
        let at = try #require(future.firstRange(of: "data-metric=\"mrr\" data-currency=\"USD\" data-at=\"").map { future[$0.upperBound...].prefix { $0 != "\"" } })
        #expect(at == "2026-03-10T12:00:00.000Z", "the summary is at now, not at a bucket that has not begun")
        let mrrNow = try #require(try Self.json(fixture, "/v1/reports/mrr?at=2026-03-10T12:00:00.000Z")["rows"] as? [[String: Any]])
        #expect(future.contains("data-metric=\"mrr\" data-currency=\"USD\" data-at=\"\(at)\" data-value=\"\(mrrNow.first { $0["currency"] as? String == "USD" }?["mrr"] as? Int ?? -1)\""))
    }

    @Test("a ledger that sold within the week shows the month just begun as this month on its 1st, before any sale in it; after a week of silence, the last month with revenue, saying so")
    func newMonthBeforeItsFirstSale() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        // The last sale: 29 March.
        let transaction = fixture.fixtures.transaction(transactionId: "2000000000000106", purchaseDate: Self.january + 87 * Self.day, price: 2990)
        #expect(try fixture.post(fixture.fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixture.fixtures.renewalInfo(for: transaction)).webhookBody).status == 200)
        func page(_ now: Int64) throws -> String {
            try fixture.server.ledger.read { reader in
                try Dashboard(reader: reader, query: QueryParameters(decoding: "period=month&currency=USD"), now: now).render(customerId: nil)
            }
        }
        let april1 = try page(Self.january + 90 * Self.day + Self.day / 2)
        #expect(april1.contains("This month: 2026-04-01 to 2026-04-01 UTC"), "\(april1.prefix(2000))")
        #expect(!april1.contains("id=\"stale\"") && !april1.contains("id=\"quiet\""))
        let april5 = try page(Self.january + 94 * Self.day)
        #expect(april5.contains("This month: 2026-04-01 to 2026-04-05 UTC"), "a week after the last sale: still live")
        let april8 = try page(Self.january + 97 * Self.day)
        #expect(april8.contains("This month: 2026-03-01 to 2026-03-31 UTC"), "\(april8.prefix(2000))")
        #expect(april8.contains("id=\"stale\">No revenue is recorded after 2026-03-31: this period ends there, not today (2026-04-08).</p>"))
        #expect(april8.contains("id=\"quiet\">The last sale or refund recorded was on 2026-03-29, 10 days ago."))
    }

    @Test("a period that holds today counts revenue over whole days, as churn, says what today has taken so far, and compares MRR now with the same time of the matching day")
    func todayIsNotCountedAgainstAWholeDay() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        // A subscription bought at 18:00 on 20 February: in MRR at that day's end, not at 06:00.
        let evening = Self.january + 50 * Self.day + 18 * 3_600_000
        let transaction = fixture.fixtures.transaction(transactionId: "2000000000000105", purchaseDate: evening, price: 2990)
        #expect(try fixture.post(fixture.fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixture.fixtures.renewalInfo(for: transaction)).webhookBody).status == 200)
        func page(now: Int64) throws -> String {
            try fixture.server.ledger.read { reader in
                try Dashboard(reader: reader, query: QueryParameters(decoding: "period=month&currency=USD"), now: now).render(customerId: nil)
            }
        }
        func usd(_ target: String, _ field: String) throws -> Int64 {
            let rows = try #require(try Self.json(fixture, target)["rows"] as? [[String: Any]])
            return Int64(rows.filter { $0["currency"] as? String == "USD" }.map { $0[field] as! Int }.reduce(0, +))
        }
        // 7 March at noon: the 19.99 USD sale of 00:00 today is today's, not the six whole days'.
        let march7 = try page(now: Self.january + 65 * Self.day + Self.day / 2)
        let cards = try Self.headline(march7)
        #expect(cards["net"]?.value == (try usd("/v1/reports/revenue?from=2026-03-01&to=2026-03-06", "net")))
        #expect(cards["net"]?.value == 0)
        #expect(cards["net"]?.previous == (try usd("/v1/reports/revenue?from=2026-02-01&to=2026-02-06", "net")))
        #expect(cards["net"]?.previous == Int64(9990 + 4990))
        #expect(march7.contains("data-metric=\"today-net\" data-currency=\"USD\" data-value=\"\(try usd("/v1/reports/revenue?from=2026-03-07&to=2026-03-07", "net"))\""))
        #expect(march7.contains("data-metric=\"today-net\" data-currency=\"USD\" data-value=\"19990\""))
        #expect(march7.contains("Today, 2026-03-07, is not over: new paid, churned and net revenue count the days through 2026-03-06, against the matching days before."), "\(march7)")
        #expect(march7.contains("id=\"compared\">compared through 2026-03-06 with 2026-02-01 to 2026-02-06</span>"))

        // 20 March at 06:00: MRR now against 20 February at 06:00, before the evening's purchase.
        let march20 = try page(now: Self.january + 78 * Self.day + 6 * 3_600_000)
        let mrr = try #require(try Self.headline(march20)["mrr"])
        #expect(mrr.previous == (try usd("/v1/reports/mrr?at=2026-02-20T06:00:00.000Z", "mrr")))
        #expect(mrr.previous != (try usd("/v1/reports/mrr?at=2026-02-20T23:59:59.999Z", "mrr")), "the day's end holds the evening's purchase")
        #expect(march20.contains("MRR and active subscriptions are now, against 2026-02-20 06:00 UTC."))
        // At 20:00 the evening's purchase of the matching day is in.
        let evening20 = try #require(try Self.headline(page(now: Self.january + 78 * Self.day + 20 * 3_600_000))["mrr"])
        #expect(evening20.previous == (try usd("/v1/reports/mrr?at=2026-02-20T20:00:00.000Z", "mrr")))
        #expect(evening20.previous == mrr.previous + 2990)

        // 1 March at noon: no whole day has ended, so the counts and revenue compare nothing.
        let march1 = try page(now: Self.january + 59 * Self.day + Self.day / 2)
        let first = try Self.headline(march1)
        #expect(first["net"] == nil && first["newPaid"] == nil && first["churned"] == nil, "no data-previous on them")
        #expect(march1.contains("<strong data-metric=\"headline-net\">—</strong><span class=\"change flat\">no whole day yet</span>"), "not a 0 beside today's sales")
        #expect(first["mrr"]?.previous == (try usd("/v1/reports/mrr?at=2026-02-01T12:00:00.000Z", "mrr")))
        #expect(march1.contains("id=\"compared\">compared with 2026-02-01 12:00 UTC</span>"), "\(march1.prefix(2000))")
        #expect(march1.contains("count whole days, and none of this period has ended."))
    }

    @Test("the cohort CSV link asks the route for what the page shows: a period in the past is measured at its end, with at=")
    func cohortLinkReproducesThePage() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        let html = String(decoding: try Self.get(fixture, "/?period=custom&from=2026-01-01&to=2026-02-28&currency=USD").body, as: UTF8.self)
        let link = try #require(html.firstRange(of: "href=\"/v1/reports/cohorts?").map { html[$0.lowerBound...].dropFirst(6).prefix { $0 != "\"" } })
        #expect(link.contains("at=2026-03-01T00%3A00%3A00.000Z"), "\(link)")
        let target = String(link).replacing("&amp;", with: "&").replacing("&format=csv", with: "")
        let rows = try #require(try Self.json(fixture, target)["rows"] as? [[String: Any]])
        for row in rows {
            let cohort = try #require(row["cohort"] as? String)
            let retained = try #require(row["retained"] as? [Int])
            let size = try #require(row["size"] as? Int)
            let start = try #require(html.range(of: "<tr><th>\(cohort)</th>"))
            let end = try #require(html.range(of: "</tr>", range: start.upperBound..<html.endIndex))
            #expect(html[start.upperBound..<end.lowerBound].components(separatedBy: " title=\"").count - 1 == retained.count, "\(cohort)")
            for kept in retained { #expect(html[start.upperBound..<end.lowerBound].contains("title=\"\(kept) of \(size)\""), "\(cohort)") }
        }
        #expect(!rows.isEmpty)
    }

    @Test("a lapse and its return inside a period of days are churn on the chart's days but not in the headline, which is the churn report's for the period")
    func headlineChurnIsTheReports() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        // The January subscription lapses on 4 March (its February renewal ran 30 days) and
        // billing recovers on the 10th; the February ones lapse on the 5th and 12th for good.
        let fixtures = fixture.fixtures
        let recovery = fixtures.transaction(
            transactionId: "2000000000000301", originalTransactionId: "2000000000000101", purchaseDate: Self.january + 68 * Self.day, price: 9990)
        let body = fixtures.notification(.didRenew, subtype: .billingRecovery, transaction: recovery, renewal: fixtures.renewalInfo(for: recovery)).webhookBody
        #expect(try fixture.post(body).status == 200)
        let html = String(decoding: try Self.get(fixture, "/?period=custom&from=2026-03-01&to=2026-03-31&currency=USD").body, as: UTF8.self)
        let daily = try Self.periodMetrics(html).filter { $0.metric == "churned" }
        #expect(daily.map(\.value).reduce(0, +) == 3, "each day's row counts its lapses: 4, 5 and 12 March")
        func churned(_ from: String, _ to: String) throws -> Int64 {
            let rows = try #require(try Self.json(fixture, "/v1/reports/churn?from=\(from)&to=\(to)")["rows"] as? [[String: Any]])
            return Int64(rows.map { $0["churned"] as! Int }.reduce(0, +))
        }
        let cards = try Self.headline(html)
        #expect(cards["churned"]?.value == (try churned("2026-03-01", "2026-03-31")))
        #expect(cards["churned"]?.value == 2, "the recovered subscription is entitled at the period's end")
        #expect(cards["churned"]?.previous == (try churned("2026-01-29", "2026-02-28")))
    }

    @Test("the MRR charts' CSV link asks for the chart's points: the series it answers has the MRR and counts the page shows at each period's end", arguments: ["12m", "month"])
    func mrrLinkAnswersTheChart(period: String) throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        let html = String(decoding: try Self.get(fixture, "/?period=\(period)&currency=USD").body, as: UTF8.self)
        let section = try #require(html.range(of: "<section id=\"mrr\""))
        let link = try #require(html[section.upperBound...].firstMatch(of: /href="(\/v1\/reports\/mrr\?[^"]+)" download>CSV/)?.output.1)
        let target = String(link).replacing("&amp;", with: "&").replacing("&format=csv", with: "")
        let series = try #require(try Self.json(fixture, target)["series"] as? [[String: Any]])
        let shown = try Self.periodMetrics(html).filter { ["mrr", "activeSubscriptions"].contains($0.metric) }
        #expect(!series.isEmpty && shown.count == 2 * series.count, "a value of each in the table for each point")
        for cell in shown {
            let point = series.first { ($0["at"] as? String)?.hasPrefix(cell.period) == true }
            let usd = (point?["rows"] as? [[String: Any]])?.first { $0["currency"] as? String == "USD" }
            let all = (point?["rows"] as? [[String: Any]]) ?? []
            // Counts are of every currency's subscribers, as the page counts them.
            let expected = cell.metric == "mrr" ? usd?["mrr"] as? Int ?? 0 : all.reduce(0) { $0 + ($1["activeSubscriptions"] as? Int ?? 0) }
            #expect(cell.value == Int64(expected), "\(cell.metric) \(cell.period)")
        }
    }

    @Test("every chart has a CSV link to the report route answering it; without a CSV renderer that route says 406, bad formats 400")
    func csvLinks() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        let html = String(decoding: try Self.get(fixture, "/?period=3m&currency=USD").body, as: UTF8.self)
        for section in ["mrr", "subscriptions", "commitments", "revenue", "churn", "trials", "cohorts"] {
            let start = try #require(html.range(of: "<section id=\"\(section)\""), "section \(section)")
            let end = try #require(html.range(of: "</section>", range: start.upperBound..<html.endIndex))
            #expect(html[start.lowerBound..<end.lowerBound].contains("&amp;format=csv\" download>CSV</a>"), "section \(section) links its CSV")
        }
        #expect(html.contains("href=\"/v1/reports/revenue?from=2026-01-01&amp;to=2026-03-31&amp;by=month&amp;environment=Production&amp;format=csv\""))
        #expect(try Self.get(fixture, "/v1/reports/revenue?from=2026-01-01&to=2026-03-31&format=csv").status.code == 406)
        #expect(try Self.get(fixture, "/v1/reports/revenue?from=2026-01-01&to=2026-03-31&format=xml").status.code == 400)
        #expect(try Self.get(fixture, "/?period=week").status.code == 400)
    }
    @Test("with serve --rates, in=CUR converts the revenue and MRR routes and the dashboard; a missing rate is a 400 naming it")
    func conversion() throws {
        let rates = try CurrencyRates(csv: "month,currency,in,rate\n2026-02,EUR,USD,2\n", source: "rates.csv")
        let fixture = try Self.ledgerWithSubscriptions(rates: rates)
        defer { fixture.server.ledger.close() }
        let february = "from=2026-02-01&to=2026-02-28"
        let revenue = try Self.json(fixture, "/v1/reports/revenue?\(february)&in=USD")
        let rows = try #require(revenue["rows"] as? [[String: Any]])
        #expect(rows.count == 1 && rows[0]["currency"] as? String == "USD")
        #expect(rows[0]["grossSales"] as? Int == 9990 + 4990 + 2 * 8990, "the EUR sale at 2")
        // The document says how it was converted, with the range's total, as the CLI's --in does.
        #expect(revenue["in"] as? [String: String] == ["currency": "USD", "rates": "rates.csv"])
        #expect((revenue["total"] as? [String: Any])?["grossSales"] as? Int == 9990 + 4990 + 2 * 8990)
        let converted = try Self.json(fixture, "/v1/reports/mrr?at=2026-02-28T23:59:59.999Z&in=usd")
        let mrr = try #require(converted["rows"] as? [[String: Any]])
        #expect(mrr.count == 1 && mrr[0]["currency"] as? String == "USD")
        #expect((converted["in"] as? [String: String])?["currency"] == "USD")

        let html = String(decoding: try Self.get(fixture, "/?period=custom&\(february)&currency=USD&convert=1").body, as: UTF8.self)
        #expect(try Self.headline(html)["net"]?.value == Int64(9990 + 4990 + 2 * 8990))
        #expect(html.contains("<option value=\"1\" selected>every currency, converted</option>"))
        // The CSV under a converted chart is converted too; counts have no currency.
        #expect(html.contains("href=\"/v1/reports/revenue?\(february.replacing("&", with: "&amp;"))&amp;by=day&amp;environment=Production&amp;in=USD&amp;format=csv\""))
        #expect(html.contains("href=\"/v1/reports/mrr?\(february.replacing("&", with: "&amp;"))&amp;by=day&amp;environment=Production&amp;in=USD&amp;format=csv\" download>CSV</a> <span class=\"muted\">MRR"))
        #expect(!html.contains("/v1/reports/churn?\(february.replacing("&", with: "&amp;"))&amp;by=day&amp;environment=Production&amp;in="))

        let missing = try Self.get(fixture, "/v1/reports/revenue?from=2026-03-01&to=2026-03-31&in=GBP")
        #expect(missing.status.code == 400)
        #expect(String(decoding: missing.body, as: UTF8.self).contains("2026-03"))
        #expect(try Self.get(fixture, "/?period=3m&currency=GBP&convert=1").status.code == 400)
        #expect(try Self.get(fixture, "/v1/reports/churn?\(february)&in=USD").status.code == 400)
    }

    @Test("converted amounts near the 64-bit edge render: an axis maximum past 2^63 and a change between opposite amounts whose difference 64 bits cannot hold took the server down")
    func convertedAmountsAtTheEdge() throws {
        // 10^13 milliunits (the bound) of EUR at 600,000: 6 × 10^18 USD milliunits each way.
        let rates = try CurrencyRates(csv: "month,currency,in,rate\n2026-01,EUR,USD,600000\n2026-02,EUR,USD,600000\n", source: "rates.csv")
        let fixture = try WebhookFixture(token: Self.token, rates: rates)
        defer { fixture.server.ledger.close() }
        let fixtures = fixture.fixtures
        var purchase = fixtures.transaction(
            transactionId: "2000000000000901", type: .consumable, purchaseDate: Self.january + 10 * Self.day, price: 10_000_000_000_000, currency: "EUR")
        #expect(try fixture.post(fixtures.notification(.oneTimeCharge, transaction: purchase).webhookBody).status == 200)
        purchase.revocationDate = Self.january + 40 * Self.day
        purchase.revocationReason = RevocationReason(rawValue: 1)
        purchase.signedDate = purchase.revocationDate
        #expect(try fixture.post(fixtures.notification(.refund, transaction: purchase).webhookBody).status == 200)
        let page = try Self.get(fixture, "/?period=custom&from=2026-02-01&to=2026-02-28&in=USD")
        #expect(page.status.code == 200)
        let html = String(decoding: page.body, as: UTF8.self)
        let net = try #require(try Self.headline(html)["net"])
        #expect(net == (-6_000_000_000_000_000_000, 6_000_000_000_000_000_000))
        #expect(html.contains("▼ 200.0 % vs previous"), "the change, without an amount no 64 bits hold")
    }

    @Test("in= that is not a currency code is a 400 asking for one, on the report routes, as CSV, and on the dashboard, rather than asking for a rate line no rates file takes")
    func conversionTargetIsACode() throws {
        let rates = try CurrencyRates(csv: "month,currency,in,rate\n2026-02,EUR,USD,2\n", source: "rates.csv")
        let fixture = try Self.ledgerWithSubscriptions(rates: rates)
        defer { fixture.server.ledger.close() }
        for target in ["US", "DOLLARS", "%E2%82%AC", "U1D"] {
            for path in ["/v1/reports/revenue?from=2026-02-01&to=2026-02-28&in=\(target)", "/v1/reports/mrr?in=\(target)", "/?in=\(target)"] {
                let answer = try Self.get(fixture, path)
                let body = String(decoding: answer.body, as: UTF8.self)
                #expect(answer.status.code == 400, "\(path)")
                #expect(body.contains("currency code such as USD") && !body.contains("add the line"), "\(path): \(body)")
            }
        }
    }

    @Test("without rates, in= is a 400 that says to start serve with --rates")
    func conversionNeedsRates() throws {
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        let answer = try Self.get(fixture, "/v1/reports/revenue?from=2026-02-01&to=2026-02-28&in=USD")
        #expect(answer.status.code == 400)
        #expect(String(decoding: answer.body, as: UTF8.self).contains("--rates"))
        #expect(!String(decoding: try Self.get(fixture, "/").body, as: UTF8.self).contains("name=\"convert\""), "no conversion offered")
    }

    @Test("every cohort cell's text has at least WCAG's 4.5:1 contrast with the cell's colour, across the whole scale and on the page")
    func cohortCellsAreReadable() throws {
        func luminance(_ red: Double, _ green: Double, _ blue: Double) -> Double {
            func linear(_ value: Double) -> Double { value <= 0.04045 * 255 ? value / 255 / 12.92 : pow((value / 255 + 0.055) / 1.055, 2.4) }
            return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
        }
        func contrast(background: String, text: String) throws -> Double {
            let channels = try #require(background.wholeMatch(of: /rgb\((\d+),(\d+),(\d+)\)/)).output
            let cell = luminance(Double(channels.1)!, Double(channels.2)!, Double(channels.3)!)
            let letters = try #require(["#000": 0.0, "#fff": 1.0][text], "text colour \(text)")
            return (max(cell, letters) + 0.05) / (min(cell, letters) + 0.05)
        }
        for step in 0...200 {
            let share = Double(step) / 200
            #expect(try contrast(background: Dashboard.heat(share), text: Dashboard.heatText(share)) >= 4.5, "share \(share)")
        }
        let fixture = try Self.ledgerWithSubscriptions()
        defer { fixture.server.ledger.close() }
        let html = String(decoding: try Self.get(fixture, "/").body, as: UTF8.self)
        let cells = html.matches(of: /<td style="background:(rgb\([0-9,]+\));color:(#[0-9a-f]+)"/)
        #expect(!cells.isEmpty)
        for cell in cells { #expect(try contrast(background: String(cell.output.1), text: String(cell.output.2)) >= 4.5) }
    }
}
