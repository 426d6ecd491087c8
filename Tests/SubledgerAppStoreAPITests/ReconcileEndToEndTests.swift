import Foundation
import SubledgerCLI
import SubledgerTestSupport
import Testing

/// `appstore reconcile` against the stand-in, through the CLI: gaps heal from Apple's signed
/// data, a drift Apple's data cannot explain is listed.
@Suite("appstore reconcile, end to end", .enabled(if: StandIn.isInstalled, StandIn.missing))
struct ReconcileEndToEndTests {
    /// A stand-in serving the workload, started with `extra`, and the ledger fed its notifications.
    static func ledgerBesideStandIn(_ workload: Workload, extra: [String]) throws -> StandIn {
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key, extra: extra)
        try workload.webhookLedger(key: key, standIn: standIn)
        return standIn
    }

    static func reconcile(_ workload: Workload, _ arguments: [String] = []) throws -> (code: ExitCode, document: [String: Any]) {
        let (code, output) = workload.cli(["appstore", "reconcile", "--json"] + arguments)
        return (code, try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any])
    }

    @Test("missed renewals heal; a status planted in the stand-in that its signed data does not back is listed as disagreeing")
    func healsGapsAndListsDrift() throws {
        // Ends a month ago, so "now" on both sides lies after every simulated event.
        let workload = try Workload(customers: 60, months: 4, seed: 91, start: Workload.start(daysAgo: 150), withhold: 0.3)
        let now = Date()
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let customers = try workload.expected["customers"] as! [String: [String: Any]]
        let active = customers.values.flatMap { ($0["subscriptions"] as! [String: [String: Any]]) }
            .filter { $0.value["status"] as? String == "active" && $0.value["ownership"] as? String == "purchased" }
            .filter { formatter.date(from: $0.value["expiresAt"] as! String)! > now.addingTimeInterval(86_400) }
            .map(\.key).sorted()
        let drifted = try #require(active.first)
        let drift = workload.directory.file("drift.json")
        try "{\"\(drifted)\": 5}".write(toFile: drift, atomically: true, encoding: .utf8)

        let standIn = try Self.ledgerBesideStandIn(workload, extra: ["--drift", drift])
        defer { withExtendedLifetime(standIn) {} }

        let (code, first) = try Self.reconcile(workload)
        #expect(code == .failure)
        let disagreed = first["disagreed"] as! [[String: Any]]
        #expect(disagreed.map { $0["originalTransactionId"] as? String } == [drifted])
        #expect((disagreed.first?["apple"] as? [String: Any])?["status"] as? String == "revoked")
        #expect((disagreed.first?["ledger"] as? [String: Any])?["status"] as? String == "active")
        let checked = first["checked"] as! Int
        #expect((first["healed"] as! Int) > 0, "the withheld notifications leave subscriptions behind Apple")
        #expect((first["agreed"] as! Int) + (first["healed"] as! Int) + 1 == checked)

        let again = try Self.reconcile(workload).document
        #expect(again["healed"] as? Int == 0)
        #expect(again["agreed"] as? Int == checked - 1)
        #expect((again["disagreed"] as! [Any]).count == 1)

        let limited = try Self.reconcile(workload, ["--limit", "5"]).document
        #expect(limited["checked"] as? Int == 5)
    }

    @Test("a subscription Apple no longer knows (404) is listed as refused, by id, and every other one is still checked")
    func refusedSubscriptionDoesNotStopTheRun() throws {
        let workload = try Workload(customers: 30, months: 4, seed: 93, start: Workload.start(daysAgo: 150))
        let customers = try workload.expected["customers"] as! [String: [String: Any]]
        let subscriptions = customers.values.flatMap { ($0["subscriptions"] as! [String: [String: Any]]).keys }.sorted()
        let forgotten = try #require(subscriptions.first)
        let standIn = try Self.ledgerBesideStandIn(workload, extra: ["--unknown", forgotten])
        defer { withExtendedLifetime(standIn) {} }

        let (code, summary) = try Self.reconcile(workload)
        #expect(code == .failure)
        #expect(summary["error"] == nil && summary["notChecked"] == nil, "\(summary)")
        let failed = summary["failed"] as! [[String: Any]]
        #expect(failed.map { $0["id"] as? String } == [forgotten])
        #expect(failed.first?["status"] as? Int == 404)
        #expect(summary["checked"] as? Int == subscriptions.count - 1)
        // Exit 1 says why on stderr with --json too, where the document alone said it.
        let run = try workload.binary(["appstore", "reconcile", "--json"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("subledger appstore reconcile: Apple refused 1 (`failed` in --json): each is listed with why"), "\(run.stderr)")
    }
}
