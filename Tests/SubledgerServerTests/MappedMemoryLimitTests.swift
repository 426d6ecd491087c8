import Foundation
import SubledgerHTTP
import SubledgerServer
import Synchronization
import Testing

@Suite("Mapped memory limit")
struct MappedMemoryLimitTests {
    /// A limit whose resident figure and release the test controls.
    final class Probe: Sendable {
        let resident = Mutex(0)
        let released = Mutex(0)
        let failing = Mutex(false)
        let logged = Mutex<[String]>([])
        let metrics = Metrics()

        func limit(bytes: Int) -> MappedMemoryLimit {
            MappedMemoryLimit(
                bytes: bytes, metrics: metrics,
                release: { [self] in
                    if failing.withLock({ $0 }) { throw CocoaError(.fileReadNoPermission) }
                    released.withLock { $0 += 1 }
                    resident.withLock { $0 = 10 }
                },
                residentBytes: { [self] in resident.withLock { $0 } },
                log: { [self] line in logged.withLock { $0.append(line) } })
        }
    }

    @Test("below the limit nothing is released; above it the pages are released once and the metrics say so")
    func releasesOnlyAboveTheLimit() {
        let probe = Probe()
        let limit = probe.limit(bytes: 1000)
        probe.resident.withLock { $0 = 1000 }
        #expect(!limit.check())
        #expect(probe.released.withLock { $0 } == 0)

        probe.resident.withLock { $0 = 1001 }
        #expect(limit.check())
        #expect(probe.released.withLock { $0 } == 1)
        #expect(!limit.check())
        #expect(probe.released.withLock { $0 } == 1)

        let exposition = probe.metrics.render()
        #expect(exposition.contains("subledger_mapped_memory_releases_total 1"))
        #expect(exposition.contains("subledger_resident_file_bytes 10"))
    }

    @Test("a release that fails is logged with what it means, and checking goes on")
    func failedReleaseIsLogged() {
        let probe = Probe()
        let limit = probe.limit(bytes: 1)
        probe.resident.withLock { $0 = 5000 }
        probe.failing.withLock { $0 = true }
        #expect(!limit.check())
        #expect(probe.logged.withLock { $0 }.first?.contains("resident set may grow") == true)
        probe.failing.withLock { $0 = false }
        #expect(limit.check())
    }

    @Test("this process's resident file-backed memory is read from /proc and includes its own binary")
    func residentFileBytesOfThisProcess() throws {
        let bytes = try #require(MappedMemoryLimit.residentFileBytes())
        #expect(bytes > 4096)
    }

    @Test("releasing a serving ledger's mapped pages changes none of its answers")
    func answersSurviveARelease() throws {
        let fixture = try WebhookFixture()
        defer { fixture.server.ledger.close() }
        for index in 0..<20 { #expect(try fixture.post(fixture.notification(index)).status == 200) }
        let targets = ["/v1/customers/2000000000000000?asOf=2026-01-15T00:00:00Z", "/v1/customers/2000000000000007?asOf=2026-01-15T00:00:00Z", "/v1/reports/revenue?from=2025-12-01&to=2026-12-31"]
        func answers() throws -> [String] {
            try targets.map { target in
                let response = try fixture.server.router.respond(to: HTTPRequest(method: "GET", target: target))
                #expect(response.status.code == 200)
                return String(decoding: response.body, as: UTF8.self)
            }
        }
        let before = try answers()
        try fixture.server.ledger.releaseMappedPages()
        #expect(try answers() == before)
        #expect(try fixture.post(fixture.notification(20)).status == 200)
        let grown = try answers()
        #expect(grown != before)
        try fixture.server.ledger.releaseMappedPages()
        #expect(try answers() == grown)
    }
}
