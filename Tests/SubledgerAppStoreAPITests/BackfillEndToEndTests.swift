import Foundation
import SubledgerCLI
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
        #expect((summary["appended"] as? Int ?? 0) > 0)
    }
}
