import Foundation
@testable import SubledgerAppStoreAPI
import SubledgerCLI
import SubledgerLedger
import SubledgerTestSupport
import Testing

/// `appstore backfill` against the stand-in, through the CLI: customers from before the ledger
/// get their history from Get Transaction History and Get All Subscription Statuses.
@Suite("appstore backfill, end to end", .enabled(if: StandIn.isInstalled, StandIn.missing))
struct BackfillEndToEndTests {
    @Test("a ledger started mid-way equals expected.json after backfill of the ids, and a rerun appends nothing")
    func backfillsCustomersFromBeforeTheLedger() throws {
        let workload = try Workload(customers: 120, months: 6, seed: 31, ledgerStart: "2026-03-01")
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        try workload.webhookLedger(key: key, standIn: standIn)
        #expect(try !workload.differencesFromExpected().isEmpty, "the missing months must show before backfill")
        let ids = workload.simulation + "/backfill-ids.txt"
        let idCount = try String(contentsOfFile: ids, encoding: .utf8).split(separator: "\n").count
        #expect(idCount > 20)

        let first = try workload.json(["appstore", "backfill", "--ids", ids])
        #expect(first["ids"] as? Int == idCount)
        #expect((first["failed"] as? [Any])?.isEmpty == true)
        #expect(first["rejected"] as? Int == 0)
        #expect((first["appended"] as? Int ?? 0) > 0)
        let differences = try workload.differencesFromExpected()
        #expect(differences == [])

        let second = try workload.json(["appstore", "backfill", "--ids", ids])
        #expect(second["appended"] as? Int == 0)
        #expect(second["duplicates"] as? Int == first["received"] as? Int)
    }

    @Test("an id Apple does not know is listed as failed with its status and the others go on")
    func unknownIdIsListed() throws {
        let workload = try Workload(customers: 30, months: 3, seed: 32, ledgerStart: "2026-02-01")
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        try workload.webhookLedger(key: key, standIn: standIn)
        let known = try String(contentsOfFile: workload.simulation + "/backfill-ids.txt", encoding: .utf8).split(separator: "\n").first.map(String.init)!
        let (code, output) = workload.cli(["appstore", "backfill", "999999999999", known, "--json"])
        #expect(code == .failure)
        let summary = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        let failed = summary["failed"] as! [[String: Any]]
        #expect(failed.count == 1)
        #expect(failed.first?["id"] as? String == "999999999999")
        #expect(failed.first?["status"] as? Int == 404)
        #expect((failed.first?["error"] as? String)?.contains("4040010") == true)
        #expect((failed.first?["error"] as? String)?.contains("check it is a transaction of this app and that `--environment` is where it was bought") == true, "it says what to check")
        #expect((summary["appended"] as? Int ?? 0) > 0)
        let run = try workload.binary(["appstore", "backfill", "999999999999", known, "--json"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("1 of 2 ids failed, each listed with why"), "\(run.stderr)")
    }

    @Test("an id Apple answers with a retryable error (4040006, not found yet) is asked again and backfilled, not listed as failed")
    func retryableErrorIsRetried() throws {
        let workload = try Workload(customers: 30, months: 3, seed: 32, ledgerStart: "2026-02-01")
        let key = try APIKey(directory: workload.directory)
        let known = try String(contentsOfFile: workload.simulation + "/backfill-ids.txt", encoding: .utf8).split(separator: "\n").first.map(String.init)!
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key, extra: ["--not-yet", known])
        try workload.webhookLedger(key: key, standIn: standIn)
        let (code, output) = workload.cli(["appstore", "backfill", known, "--json"])
        #expect(code == .success, "\(output)")
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect((summary["failed"] as? [Any])?.isEmpty == true)
        #expect((summary["received"] as? Int ?? 0) > 0, "its history was fetched")
    }

    /// `appstore backfill --json` of every id of a two-year simulation beside a stand-in
    /// answering with `fault`: it exits 1, and its ids and summary.
    static func backfillFailing(_ fault: String) throws -> (ids: [String], summary: [String: Any]) {
        let workload = try Workload(customers: 30, months: 24, seed: 33, ledgerStart: "2027-06-01")
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key, extra: [fault])
        try workload.webhookLedger(key: key, standIn: standIn)
        let ids = try String(contentsOfFile: workload.simulation + "/backfill-ids.txt", encoding: .utf8).split(separator: "\n").map(String.init)
        let (code, output) = workload.cli(["appstore", "backfill"] + ids + ["--json"])
        #expect(code == .failure)
        return (ids, try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any])
    }

    @Test("a transaction history answering hasMore without a revision lists that id as failed, naming what is missing, and the others go on")
    func missingRevisionFailsTheId() throws {
        let (ids, summary) = try Self.backfillFailing("--drop-token")
        let failed = try #require(summary["failed"] as? [[String: Any]])
        #expect(!failed.isEmpty && failed.count < ids.count, "the ids with more than a page of history, only")
        #expect(failed.allSatisfy { ($0["error"] as? String)?.contains("hasMore without a revision") == true }, "\(failed)")
    }

    @Test("a transaction history whose paging never ends (hasMore with a new revision on empty pages) fails each id after a few requests, naming why, with what its pages held stored")
    func endlessPagingFailsTheIdSoon() throws {
        let (ids, summary) = try Self.backfillFailing("--endless-pages")
        let failed = try #require(summary["failed"] as? [[String: Any]])
        #expect(failed.count == ids.count)
        #expect(failed.allSatisfy { ($0["error"] as? String)?.contains("pages in a row with hasMore and a new revision held nothing new") == true }, "\(failed.prefix(2))")
        #expect((summary["received"] as? Int ?? 0) > 0, "the pages with transactions were stored")
        // A page or two of history each, then the pages that bring nothing.
        #expect((summary["requests"] as? Int ?? .max) <= ids.count * (PageCursor.fruitlessLimit + 3))
    }

    @Test("Apple unreachable mid-run: the backfill stops at once, listing the ids done, the one it stopped at and the ones not tried")
    func unreachableApiStopsTheRun() throws {
        let workload = try Workload(customers: 30, months: 3, seed: 33, ledgerStart: "2026-02-01")
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        try workload.webhookLedger(key: key, standIn: standIn)
        let ids = try String(contentsOfFile: workload.simulation + "/backfill-ids.txt", encoding: .utf8).split(separator: "\n").prefix(4).map(String.init)
        let ledger = try Ledger(directory: workload.data)
        defer { ledger.close() }
        let api = try #require(try APIConfiguration.load(directory: workload.data))
        let client = try api.client(directory: workload.data, bundleId: "com.example.subledger", environment: "Production", sleep: { _ in })
        let summary = try Backfill(ledger: ledger, client: client, clock: WallTime.nowMillis).run(ids: ids) { summary in
            if summary.ids == 1 { standIn.stop() }
        }
        #expect(summary.done == [ids[0]])
        #expect(summary.failed.map(\.id) == [ids[1]])
        #expect(summary.notDone == Array(ids[2...]))
        guard case .gaveUp(_, let attempts, _, _)? = summary.stoppedBy else {
            Issue.record("stopped by \(String(describing: summary.stoppedBy))")
            return
        }
        #expect(attempts == RetryPolicy().maximumAttempts)
    }

    @Test("Apple unreachable from the start: exit 1 at the first id, with the ids not done in the JSON and no promise of a resume")
    func unreachableApiExitsAtTheFirstId() throws {
        let workload = try Workload(customers: 3, months: 1, seed: 34)
        let key = try APIKey(directory: workload.directory)
        let initialized = workload.cli(["init", "--bundle-id", "com.example.subledger", "--root", workload.simulation + "/root.cer", "--api-key", key.keyFile,
                                        "--api-key-id", key.keyId, "--api-issuer-id", key.issuerId, "--api-base-url", "https://127.0.0.1:1"])
        #expect(initialized.exitCode == .success)
        let (code, output) = workload.cli(["appstore", "backfill", "1000000001", "1000000002", "1000000003", "--json"])
        #expect(code == .failure)
        let summary = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        #expect(summary["ids"] as? Int == 1)
        #expect((summary["failed"] as? [[String: Any]])?.map { $0["id"] as? String } == ["1000000001"])
        #expect(summary["done"] as? [String] == [])
        #expect(summary["notDone"] as? [String] == ["1000000002", "1000000003"])
        let error = try #require(summary["error"] as? String)
        #expect(!error.contains("resumes"))
    }

    @Test("failed requests count: three unknown ids are three requests, and a 500 that outlasts the retries is listed with status 500")
    func failedRequestsAreCountedWithTheirStatus() throws {
        let workload = try Workload(customers: 10, months: 1, seed: 35)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        try workload.webhookLedger(key: key, standIn: standIn)
        let unknown = try workload.json(["appstore", "backfill", "900000000001", "900000000002", "900000000003"])
        #expect(unknown["requests"] as? Int == 3)
        #expect((unknown["failed"] as? [[String: Any]])?.map { $0["status"] as? Int } == [404, 404, 404])

        let failing = try StandIn(workload: workload.simulation, state: workload.directory.file("standin-failing"), key: key, extra: ["--server-error", "1"])
        let ledger = try Ledger(directory: workload.data)
        defer { ledger.close() }
        let client = try AppStoreServerAPIClient(baseURL: failing.baseURL, credentials: APICredentials(key: key.key, keyId: key.keyId, issuerId: key.issuerId, bundleId: "com.example.subledger"),
                                                 settings: HTTPSettings(extraCAFile: failing.caFile), retry: RetryPolicy(maximumAttempts: 3), sleep: { _ in })
        let summary = try Backfill(ledger: ledger, client: client, clock: WallTime.nowMillis).run(ids: ["900000000001", "900000000002"])
        #expect(summary.requests == 3)
        #expect(summary.failed.map(\.status) == [500])
        #expect(summary.notDone == ["900000000002"])
    }
}
