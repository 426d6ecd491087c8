import Foundation
import SubledgerCLI
import SubledgerLog
import SubledgerTestSupport
import Testing

/// kill -9 in the middle of `appstore recover` and `appstore backfill`: a rerun completes, with
/// nothing lost and nothing doubled.
@Suite("kill -9 during appstore commands", .enabled(if: StandIn.isInstalled, StandIn.missing))
struct KillDuringRunTests {
    /// Starts `subledger ARGS…` (the binary) and kills it with SIGKILL once it has appended to
    /// the log: mid-way however fast or slow the machine is.
    static func killed(_ workload: Workload, _ arguments: [String]) throws {
        let log = workload.data + "/log"
        let before = (try? LogReader(directory: log).summary().records) ?? 0
        let records = { (try? LogReader(directory: log).summary().records) ?? before }
        let process = Process()
        process.executableURL = ServeRecoveryTests.binary
        process.arguments = ["--data", workload.data] + arguments
        process.standardError = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(120)
        while process.isRunning && records() == before && Date() < deadline { usleep(5_000) }
        #expect(process.isRunning, "the run must still be going when it is killed")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    @Test("recover killed mid-way, then run again: equals expected.json, every notification once")
    func recoverSurvivesKill() throws {
        let workload = try Workload(customers: 60, months: 3, seed: 71, withhold: 0.3)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key,
                                  extra: ["--slow", "1", "--slow-seconds", "0.15"])
        try workload.webhookLedger(key: key, standIn: standIn)
        let window = ["--since", "2026-01-01", "--until", "2026-04-01"]
        try Self.killed(workload, ["appstore", "recover"] + window)
        let partial = try workload.eventCount
        #expect(partial < (try workload.historyCount))

        let rerun = try workload.json(["appstore", "recover"] + window)
        #expect(rerun["rejected"] as? Int == 0)
        #expect(try workload.eventCount == (try workload.historyCount))
        #expect(try workload.differencesFromExpected() == [])
    }

    @Test("backfill killed mid-way, then run again: the same events, reports and states as an uninterrupted run")
    func backfillSurvivesKill() throws {
        let workload = try Workload(customers: 60, months: 4, seed: 72, ledgerStart: "2026-03-01")
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key,
                                  extra: ["--slow", "1", "--slow-seconds", "0.1"])
        try workload.webhookLedger(key: key, standIn: standIn)
        let delivered = try workload.eventCount
        let ids = ["appstore", "backfill", "--ids", workload.simulation + "/backfill-ids.txt"]
        try Self.killed(workload, ids)

        let rerun = try workload.json(ids)
        #expect((rerun["failed"] as? [Any])?.isEmpty == true)
        #expect(try workload.json(ids)["appended"] as? Int == 0)

        // The same backfill, never interrupted, into a second ledger: the same events.
        let clean = workload.directory.file("clean")
        for arguments in [["init", "--bundle-id", "com.example.subledger", "--root", workload.simulation + "/root.cer", "--api-key", key.keyFile,
                           "--api-key-id", key.keyId, "--api-issuer-id", key.issuerId, "--api-base-url", standIn.baseURL, "--api-ca-file", standIn.caFile],
                          ["ingest", workload.simulation + "/notifications.jsonl"], ids] {
            #expect(CommandLineTool().run(["--data", clean] + arguments).exitCode == .success)
        }
        let cleanStats = try JSONSerialization.jsonObject(with: Data(CommandLineTool().run(["--data", clean, "stats", "--json"]).output.utf8)) as! [String: Any]
        #expect(try workload.eventCount == cleanStats["events"] as! Int)
        #expect(try workload.eventCount > delivered)
        #expect(try workload.answers(data: workload.data) == workload.answers(data: clean))
    }
}
