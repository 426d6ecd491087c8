import Foundation
import SubledgerHTTP
import SubledgerLedger
import SubledgerServer
import SubledgerTestSupport
import Testing

/// `docs/metrics.md` is what an operator alerts on: it names every family `serve` can show, and
/// nothing else.
@Suite("Metrics documentation")
struct MetricsDocumentationTests {
    @Test("every metric family a server with every part running shows is listed in docs/metrics.md, and every family listed there is shown")
    func documentedFamiliesAreTheServedOnes() throws {
        let directory = TemporaryDirectory()
        _ = try Ledger.initialize(directory: directory.path, bundleId: "com.example.subledger", appAppleId: nil, environments: ["Production"],
                                  rootFiles: [], smallBusiness: false, catalogFile: nil)
        let service = LedgerServer(ledger: try Ledger(directory: directory.path), token: nil)
        // The parts `serve` starts beside the routes, on the registry it gives them.
        _ = PeriodicRecovery(ledger: service.ledger, every: 3600, metrics: service.metrics, log: { _ in })
        let limit = MappedMemoryLimit(bytes: 1 << 40, metrics: service.metrics, release: {}, log: { _ in })
        limit.check()
        let server = try HTTPServer(configuration: LedgerServer.httpConfiguration(host: "127.0.0.1", port: 0), metrics: service.metrics, handler: service.router)
        defer {
            server.shutdown()
            service.feed.stop()
            service.ledger.close()
        }
        let scraped = String(decoding: try service.router.respond(to: HTTPRequest(method: "GET", target: "/metrics")).body, as: UTF8.self)
        let served = Set(scraped.split(separator: "\n").compactMap { line -> String? in
            let words = line.split(separator: " ")
            return words.count == 4 && words[0] == "#" && words[1] == "TYPE" ? String(words[2]) : nil
        })
        let page = try String(contentsOf: Conformance.repositoryRoot.appendingPathComponent("docs/metrics.md"), encoding: .utf8)
        // The first cell of each table row: | `name` | type | ...
        let documented = Set(page.split(separator: "\n").compactMap { line -> String? in
            guard line.hasPrefix("| `"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
        })
        #expect(served.count >= 15, "\(served.sorted())")
        #expect(served.subtracting(documented).isEmpty, "shown but not in docs/metrics.md: \(served.subtracting(documented).sorted())")
        #expect(documented.subtracting(served).isEmpty, "in docs/metrics.md but not shown: \(documented.subtracting(served).sorted())")
    }
}
