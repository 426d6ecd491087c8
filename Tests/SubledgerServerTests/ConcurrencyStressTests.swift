import Dispatch
import Foundation
import SubledgerHTTP
import SubledgerLedger
import SubledgerProjections
import SubledgerServer
import SubledgerSimulator
import SubledgerTestSupport
import Synchronization
import Testing

/// Everything that touches the ledger at once, as a busy server does: webhook posts and batch
/// ingestion, background folds that flush the projection database every few events, rebuilds
/// that switch databases under readers, and HTTP reads (reports at a past position, customers,
/// the dashboard). Afterwards every answer must equal a fresh rebuild's. This is the reproduction
/// attempt for the old debug-build crash (docs/reliability.md); `Tools/stress` runs it for minutes
/// with `SUBLEDGER_STRESS_CUSTOMERS` and `SUBLEDGER_STRESS_MONTHS`.
@Suite("Concurrency stress: ingestion, folds, rebuilds and reads at once")
struct ConcurrencyStressTests {
    static let customers = ProcessInfo.processInfo.environment["SUBLEDGER_STRESS_CUSTOMERS"].flatMap(Int.init) ?? 40
    static let months = ProcessInfo.processInfo.environment["SUBLEDGER_STRESS_MONTHS"].flatMap(Int.init) ?? 4

    /// The last day reports cover: the simulation's, or two days ago if earlier, so a run that
    /// crosses midnight UTC asks the same question of the live ledger and of the rebuild
    /// (churn counts whole days through yesterday).
    static let reportEnd: UTCDay = {
        let simulated = UTCDay(number: UTCDay("2026-01-01")!.number + Int64(months) * 31)
        return min(simulated, UTCDay(number: UTCDay(containing: Int64(Date().timeIntervalSince1970 * 1000)).number - 2))
    }()

    /// What the run saw, checked when it is over.
    struct Observations {
        var positions: [String] = []
        var pastAnswers: [(target: String, body: String)] = []
        var failures: [String] = []
        var reads = 0
        var rebuilds = 0
    }

    @Test("every answer given under concurrent ingestion, folds and rebuilds equals a fresh rebuild's", .timeLimit(.minutes(30)))
    func answersEqualFreshRebuild() throws {
        let directory = TemporaryDirectory()
        let configuration = Simulator.Configuration(customers: Self.customers, months: Self.months, seed: 2026, start: "2026-01-01", duplicates: 0.1, reorder: 0.2)
        _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
        let lines = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("sim/expected.json")))) as! [String: Any]
        let customerIds = (expected["customers"] as! [String: Any]).keys.sorted()
        let data = directory.file("data")
        _ = try Ledger.initialize(directory: data, bundleId: configuration.bundleId, appAppleId: configuration.appAppleId, environments: ["Production"],
                                  rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        // Flushing every 25 events makes the background fold write the database all the time.
        let server = LedgerServer(ledger: try Ledger(directory: data, snapshotEveryEvents: 25), token: nil)

        let next = Atomic(0)
        let acknowledged = Atomic(0)
        // Messages stored (an acknowledged duplicate adds nothing for a read to see).
        let appended = Atomic(0)
        let ingesting = Atomic(true)
        let seen = Mutex(Observations())
        // Threads of their own: the workers block, and Dispatch's global queues have as many
        // threads as cores, so blocked readers would keep the writers from ever starting.
        let group = DispatchGroup()
        func spawn(_ body: @escaping @Sendable () -> Void) {
            group.enter()
            Thread { body(); group.leave() }.start()
        }
        @Sendable func note(_ failure: String) { seen.withLock { $0.failures.append(failure) } }

        // Webhook posts, one message each, on three threads.
        for _ in 0..<3 {
            spawn {
                let router = server.router
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < lines.count else { return }
                    let response = Self.respond(router, "POST", "/v1/notifications/appstore", body: lines[index])
                    guard response.status == 200 else { return note("webhook line \(index + 1): \(response.status) \(response.body)") }
                    // A duplicate carries its original's position too.
                    if Self.field("status", of: response.body) == "appended", let position = Self.field("position", of: response.body) {
                        seen.withLock { $0.positions.append(position) }
                        appended.add(1, ordering: .releasing)
                    }
                    acknowledged.add(1, ordering: .releasing)
                }
            }
        }
        // Batch ingestion (the CLI's `ingest` path) of ten lines at a time, beside the webhook.
        spawn {
            while true {
                let first = next.add(10, ordering: .relaxed).oldValue
                guard first < lines.count else { return }
                let batch = (first..<min(first + 10, lines.count)).map { IngestLine(bytes: lines[$0], line: $0 + 1, source: "stress") }
                do {
                    for outcome in try server.ledger.ingest(batch, recordedAt: WallTime.nowMillis()) {
                        switch outcome {
                        case .appended(let position):
                            seen.withLock { $0.positions.append(position) }
                            appended.add(1, ordering: .releasing)
                        case .duplicate: break
                        case .rejected(let reason, let detail): note("batch from line \(first + 1) rejected: \(reason) \(detail)")
                        }
                        acknowledged.add(1, ordering: .releasing)
                    }
                } catch { note("batch ingestion: \(error)") }
            }
        }

        let readers = DispatchGroup()
        func read(_ body: @escaping @Sendable (Router, inout SeededGenerator) -> Void) {
            readers.enter()
            Thread {
                let router = server.router
                var random = SeededGenerator(state: UInt64.random(in: 1...UInt64.max))
                repeat { body(router, &random) } while ingesting.load(ordering: .acquiring)
                readers.leave()
            }.start()
        }
        // Reads see every message stored before they began.
        read { _, _ in
            let before = appended.load(ordering: .acquiring)
            do {
                let summary = try server.ledger.read { try $0.projections.summary() }
                if summary.notifications < before { note("a read saw \(summary.notifications) notifications after \(before) were stored") }
            } catch { note("read: \(error)") }
            seen.withLock { $0.reads += 1 }
        }
        // Reports as of a past position, kept to be asked again of the fresh rebuild.
        read { router, random in
            guard let position = seen.withLock({ $0.positions.randomElement(using: &random) }) else { return }
            let target = Self.pastReports(at: position).randomElement(using: &random)!
            let response = Self.respond(router, "GET", target)
            guard response.status == 200 else { return note("GET \(target): \(response.status) \(response.body)") }
            seen.withLock { $0.pastAnswers.append((target, response.body)); $0.reads += 1 }
        }
        // Customers and the dashboard, as they stand.
        read { router, random in
            let id = customerIds.randomElement(using: &random)!
            for target in ["/v1/customers/\(id)?asOf=2030-01-01", "/v1/customers/\(id)/history", "/"] {
                let status = Self.respond(router, "GET", target).status
                if status != 200 && status != 404 { note("GET \(target): \(status)") }
            }
            seen.withLock { $0.reads += 1 }
        }
        // Rebuilds switch the projection database under the readers and the background fold.
        read { _, _ in
            let before = appended.load(ordering: .acquiring)
            do {
                _ = try server.ledger.rebuildProjections()
                let notifications = try server.ledger.read { try $0.projections.summary().notifications }
                if notifications < before { note("after a rebuild a read saw \(notifications) notifications, \(before) stored") }
            } catch { note("rebuild: \(error)") }
            seen.withLock { $0.rebuilds += 1 }
        }
        group.wait()
        ingesting.store(false, ordering: .releasing)
        readers.wait()

        let observations = seen.withLock { $0 }
        let failures = observations.failures.count
        #expect(failures == 0, "the first of them: \(observations.failures.prefix(5))")
        #expect(acknowledged.load(ordering: .acquiring) == lines.count)
        #expect(observations.rebuilds > 0 && observations.reads > 0)
        print("stress: \(lines.count) messages, \(appended.load(ordering: .acquiring)) stored; \(observations.reads) reads, \(observations.rebuilds) rebuilds, \(observations.pastAnswers.count) past reports to recheck")
        let liveAnswers = Self.finalAnswers(server.router, customerIds)
        server.ledger.close()

        // The fresh rebuild: every event folded again from the log, into a new database.
        _ = try Ledger.rebuildProjections(directory: data)
        let rebuilt = LedgerServer(ledger: try Ledger(directory: data), token: nil)
        defer { rebuilt.ledger.close() }
        let router = rebuilt.router
        let mismatches = observations.pastAnswers.filter { Self.respond(router, "GET", $0.target).body != $0.body }
        #expect(mismatches.isEmpty, "of \(observations.pastAnswers.count) past reports, these differ from the rebuild: \(mismatches.prefix(3).map(\.target))")
        let fresh = Self.finalAnswers(router, customerIds)
        #expect(liveAnswers.count == fresh.count)
        for (target, body) in liveAnswers where fresh[target] != body {
            Issue.record("GET \(target) differs from the fresh rebuild")
        }
    }

    /// Report queries as of the ledger at `position` (the answer never changes afterwards).
    static func pastReports(at position: String) -> [String] {
        [
            "/v1/reports/revenue?from=2026-01-01&to=\(reportEnd)&atPosition=\(position)",
            "/v1/reports/revenue?from=2026-01-01&to=\(reportEnd)&by=day&byProduct=1&atPosition=\(position)",
            "/v1/reports/mrr?at=2026-03-01T00:00:00.000Z&atPosition=\(position)",
            "/v1/reports/churn?from=2026-01-01&to=\(reportEnd)&atPosition=\(position)",
        ]
    }

    /// Every report and customer, once all is in.
    static func finalAnswers(_ router: Router, _ customerIds: [String]) -> [String: String] {
        var targets = [
            "/v1/reports/revenue?from=2026-01-01&to=\(reportEnd)&by=day&byProduct=1",
            "/v1/reports/churn?from=2026-01-01&to=\(reportEnd)",
            // At one instant in the past (a later one is now): the live answer and the rebuild's are asked moments apart.
            "/v1/reports/cohorts?from=2026-01&to=\(reportEnd.description.prefix(7))&at=2026-12-01",
        ]
        targets += (1...12).map { "/v1/reports/mrr?at=2026-\(String($0).leftPadded(2))-01T00:00:00.000Z" }
        targets += customerIds.map { "/v1/customers/\($0)?asOf=2030-01-01" }
        return Dictionary(uniqueKeysWithValues: targets.map { target in
            let response = respond(router, "GET", target)
            return (target, "\(response.status) \(response.body)")
        })
    }

    static func respond(_ router: Router, _ method: String, _ target: String, body: [UInt8] = []) -> (status: Int, body: String) {
        let response: HTTPResponse
        do { response = try router.respond(to: HTTPRequest(method: method, target: target, body: body)) } catch let error as HTTPError {
            response = .error(error.status, code: error.code, detail: error.detail)
        } catch {
            return (500, "\(error)")
        }
        return (response.status.code, String(decoding: response.body, as: UTF8.self))
    }

    static func field(_ name: String, of body: String) -> String? {
        ((try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any])?[name] as? String
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
