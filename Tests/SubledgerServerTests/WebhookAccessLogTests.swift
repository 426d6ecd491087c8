import Foundation
import SubledgerHTTP
import SubledgerJWS
import SubledgerServer
import SubledgerTestSupport
import Synchronization
import Testing

@Suite("Webhook access log")
struct WebhookAccessLogTests {
    @Test("the access log says whether a 200 stored the message or found it stored, and which check refused one, as the metrics count them")
    func outcomesAreLogged() throws {
        let fixture = try WebhookFixture()
        let lines = Mutex<[String]>([])
        var configuration = LedgerServer.httpConfiguration(host: "127.0.0.1", port: 0)
        configuration.accessLog = .custom { line in lines.withLock { $0.append(line) } }
        let server = try HTTPServer(configuration: configuration, metrics: fixture.server.metrics, handler: fixture.server.router)
        defer {
            server.shutdown()
            fixture.server.feed.stop()
            fixture.server.ledger.close()
        }
        let other = AppStoreFixtures(pki: try TestPKI(validity: 1_700_000_000_000...1_900_000_000_000), environment: .production)
        let transaction = other.transaction()
        let forged = other.notification(.didRenew, transaction: transaction, renewal: other.renewalInfo(for: transaction)).webhookBody
        let genuine = fixture.notification()
        for body in [genuine, genuine, forged] {
            let head = "POST /v1/notifications/appstore HTTP/1.1\r\nHost: localhost\r\nContent-Length: \(body.count)\r\n\r\n"
            _ = try Socket(port: server.port).ask(head + String(decoding: body, as: UTF8.self))
        }
        // A line is written once its response has gone to the socket, after the client read it.
        let deadline = Date().addingTimeInterval(30)
        while lines.withLock({ $0.count }) < 3 && Date() < deadline { usleep(10_000) }
        let logged = lines.withLock { $0 }
        #expect(logged.count == 3)
        #expect(logged.map { $0.contains("status=200 outcome=appended ") } == [true, false, false], "\(logged)")
        #expect(logged.map { $0.contains("status=200 outcome=duplicate ") } == [false, true, false], "\(logged)")
        #expect(logged.last?.contains("status=422 outcome=chain_untrusted ") == true, "\(logged)")
    }
}
