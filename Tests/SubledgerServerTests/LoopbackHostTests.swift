import Foundation
import SubledgerHTTP
import Testing

/// A server without a token answers reads only for requests addressed to a loopback name: a
/// page an attacker's DNS points at 127.0.0.1 (DNS rebinding) must not read the ledger.
@Suite("Reads without a token")
struct LoopbackHostTests {
    func get(_ fixture: WebhookFixture, _ target: String, host: String?) throws -> (status: Int, json: [String: Any]) {
        var headers = HTTPHeaders()
        if let host { headers.add("Host", host) }
        return try fixture.respond(HTTPRequest(method: "GET", target: target, headers: headers))
    }

    @Test("addressed by another name, every read route is 403 naming --token-file; the webhook still takes notifications")
    func otherNamesRefused() throws {
        let fixture = try WebhookFixture()
        defer { fixture.server.ledger.close() }
        var headers = HTTPHeaders()
        headers.add("Host", "rebind.attacker.example:8080")
        #expect(try fixture.respond(HTTPRequest(method: "POST", target: "/v1/notifications/appstore", headers: headers, body: fixture.notification())).status == 200)
        for target in ["/v1/head", "/v1/events?raw=1", "/v1/customers/2000000000000001", "/v1/reports/mrr", "/metrics", "/"] {
            let refused = try get(fixture, target, host: "rebind.attacker.example:8080")
            #expect(refused.status == 403, "\(target)")
            #expect((refused.json["detail"] as? String)?.contains("--token-file") == true || target == "/metrics" || target == "/", "\(target)")
        }
    }

    @Test("addressed as localhost, 127.x or [::1], with or without a port, or without Host at all, reads are answered", arguments: [
        "localhost", "localhost:8080", "LOCALHOST:8080", "127.0.0.1:8080", "127.1.2.3", "[::1]:8080", "[::1]", nil,
    ])
    func loopbackNamesAnswered(host: String?) throws {
        let fixture = try WebhookFixture()
        defer { fixture.server.ledger.close() }
        let answer = try get(fixture, "/v1/reports/mrr", host: host)
        #expect(answer.status == 200, "\(answer.json)")
    }
}
