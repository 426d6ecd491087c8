import Foundation
import SubledgerHTTP
import SubledgerLedger
import SubledgerLog
import SubledgerServer
import Testing

@Suite("Head route")
struct HeadRouteTests {
    @Test("GET /v1/head needs the token and answers as head: a digest that moves with each acknowledged event, kept for its position")
    func head() throws {
        let fixture = try WebhookFixture(token: "t0ken")
        defer { fixture.server.ledger.close() }
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer t0ken")
        func get(_ target: String, authorized: Bool = true) throws -> (status: Int, json: [String: Any]) {
            try fixture.respond(HTTPRequest(method: "GET", target: target, headers: authorized ? headers : HTTPHeaders()))
        }
        #expect(try get("/v1/head").status == 404)
        #expect(try fixture.post(fixture.notification(1)).status == 200)
        let first = try get("/v1/head")
        #expect(first.status == 200)
        #expect(first.json["events"] as? Int == 1)
        #expect(first.json["messages"] as? Int == 1)
        #expect((first.json["hash"] as? String)?.count == 64)
        #expect(try get("/v1/head", authorized: false).status == 401)
        for target in ["/v1/head?position=1", "/v1/head?at-position=1"] {
            #expect(try get(target).json["error"] as? String == "unknown_parameter", "\(target)")
        }
        // One code for every problem with the position, as the report routes' `atPosition`.
        for target in ["/v1/head?at=1&at=2", "/v1/head?at=nowhere", "/v1/head?at=1"] {
            #expect(try get(target).json["error"] as? String == "invalid_position", "\(target)")
        }

        #expect(try fixture.post(fixture.notification(2)).status == 200)
        let second = try get("/v1/head")
        #expect(second.json["events"] as? Int == 2)
        #expect(second.json["hash"] as? String != first.json["hash"] as? String)
        let position = try #require(first.json["position"] as? String)
        let again = try get("/v1/head?at=" + position)
        #expect(again.json["hash"] as? String == first.json["hash"] as? String)
        #expect(try LedgerHead.verify(directory: fixture.directory.file("data"), hash: first.json["hash"] as! String, at: LogPosition(position)!).ok)
        #expect(try get("/v1/head?at=nowhere").status == 400)
        #expect(try get("/v1/head?at=7").json["error"] as? String == "invalid_position")
    }

    @Test("the head and reports at a log position, which read the whole log, go to the slow lane however their path is spelled; look-ups, reports, pages and the webhook do not")
    func slowReadsAreTheWholeLogOnes() throws {
        let configuration = LedgerServer.httpConfiguration(host: "127.0.0.1", port: 0)
        #expect(configuration.slowReadThreads > 0)
        for target in ["/v1/head", "/v1/reports/revenue?from=2026-01-01&to=2026-01-31&atPosition=120", "/v1/reports/mrr?atPosition=7",
                       "/v1/%68ead", "/%761/head", "/v1/%72eports/mrr?atPosition=7", "/v1/reports/%6Drr?atPosition=7", "/v1/reports/mrr?at-position=7"] {
            #expect(configuration.isSlowRead(try HTTPRequest(method: "GET", target: target)), "\(target)")
        }
        for target in ["/v1/customers/1000?atPosition=7", "/v1/reports/revenue?from=2026-01-01&to=2026-01-31", "/v1/events?limit=1000", "/", "/metrics"] {
            #expect(!configuration.isSlowRead(try HTTPRequest(method: "GET", target: target)), "\(target)")
        }
    }
}
