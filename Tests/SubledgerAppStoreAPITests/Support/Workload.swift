import Foundation
import SubledgerCLI
import SubledgerSimulator
import SubledgerTestSupport

/// A simulated app, a webhook-only ledger of what was delivered, and the CLI to drive it.
struct Workload {
    let directory = TemporaryDirectory()
    let months: Int
    let start: String
    var simulation: String { directory.file("sim") }
    var data: String { directory.file("ledger") }

    init(customers: Int, months: Int, seed: UInt64, start: String = "2026-01-01", withhold: Double = 0, ledgerStart: String? = nil) throws {
        self.months = months
        self.start = start
        let configuration = Simulator.Configuration(customers: customers, months: months, seed: seed, start: start, withhold: withhold, ledgerStart: ledgerStart)
        _ = try Simulator(configuration: configuration).run(to: simulation)
    }

    /// Runs `subledger --data LEDGER ARGS…` in process.
    @discardableResult
    func cli(_ arguments: [String]) -> (exitCode: ExitCode, output: String) {
        CommandLineTool().run(["--data", data] + arguments)
    }

    /// `subledger ARGS…` run as the built binary, for what it prints on stderr.
    func binary(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let process = Process()
        process.executableURL = ServeRecoveryTests.binary
        process.arguments = ["--data", data] + arguments
        let (out, err) = (Pipe(), Pipe())
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: stdout, as: UTF8.self), String(decoding: stderr, as: UTF8.self))
    }

    func json(_ arguments: [String]) throws -> [String: Any] {
        let (code, output) = cli(arguments + ["--json"])
        guard code == .success || code == .failure, let object = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] else {
            throw StandInError(message: "subledger \(arguments.joined(separator: " ")) exited \(code): \(output)")
        }
        return object
    }

    /// `init` with the simulation's root and the stand-in's API settings, then `ingest` of what the webhook delivered.
    func webhookLedger(key: APIKey, standIn: StandIn) throws {
        let initialized = cli(["init", "--bundle-id", "com.example.subledger", "--root", simulation + "/root.cer", "--api-key", key.keyFile,
                               "--api-key-id", key.keyId, "--api-issuer-id", key.issuerId, "--api-base-url", standIn.baseURL, "--api-ca-file", standIn.caFile])
        guard initialized.exitCode == .success else { throw StandInError(message: "init failed") }
        guard cli(["ingest", simulation + "/notifications.jsonl"]).exitCode == .success else { throw StandInError(message: "ingest failed") }
    }

    var expected: [String: Any] {
        get throws { try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: simulation + "/expected.json"))) as! [String: Any] }
    }

    /// The last simulated day.
    var end: String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let first = calendar.date(byAdding: .month, value: months, to: formatter.date(from: start)!)!
        return formatter.string(from: first.addingTimeInterval(-86_400))
    }

    /// A first day about `days` ago, so the simulation lies within Apple's 180-day history.
    static func start(daysAgo days: Int) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: Date().addingTimeInterval(-Double(days) * 86_400))
    }

    /// Every report and subscription state that differs from `expected.json` (empty: it agrees).
    func differencesFromExpected() throws -> [String] {
        let expected = try expected
        var differences: [String] = []
        func rows(_ object: [String: Any], _ key: String = "rows") -> Set<NSDictionary> {
            Set((object[key] as? [[String: Any]] ?? []).map { NSDictionary(dictionary: $0) })
        }
        if try rows(json(["report", "revenue", "--from", start, "--to", end])) != rows(expected, "revenue") { differences.append("revenue") }
        if try rows(json(["report", "churn", "--from", start, "--to", end])) != rows(expected, "churn") { differences.append("churn") }
        for point in expected["mrr"] as! [[String: Any]] {
            let at = point["at"] as! String
            if try rows(json(["report", "mrr", "--at", at])) != rows(point) { differences.append("mrr at \(at)") }
        }
        let fields = ["status", "entitled", "expiresAt", "autoRenew", "productId", "expirationReason", "priceIncrease", "billingPlan", "commitment", "ownership"]
        for (id, customer) in expected["customers"] as! [String: [String: Any]] {
            let (code, output) = cli(["customer", id, "--as-of", end + "T23:59:59.999Z", "--json"])
            guard code == .success, let state = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any] else {
                differences.append("customer \(id) missing")
                continue
            }
            let subscriptions = (state["subscriptions"] as? [[String: Any]] ?? []).reduce(into: [String: NSDictionary]()) {
                $0[$1["originalTransactionId"] as! String] = NSDictionary(dictionary: $1.filter { fields.contains($0.key) })
            }
            for (original, expectedState) in customer["subscriptions"] as! [String: [String: Any]] where subscriptions[original] != NSDictionary(dictionary: expectedState) {
                differences.append("customer \(id) subscription \(original)")
            }
        }
        return differences
    }

    /// Every report and customer state as `subledger --data DATA … --json` prints it, for
    /// comparing two ledgers of the same workload.
    func answers(data: String) throws -> [String] {
        var commands = [["report", "revenue", "--from", start, "--to", end], ["report", "churn", "--from", start, "--to", end]]
        commands += (try expected["mrr"] as! [[String: Any]]).map { ["report", "mrr", "--at", $0["at"] as! String] }
        commands += (try expected["customers"] as! [String: Any]).keys.sorted().map { ["customer", $0, "--as-of", end + "T23:59:59.999Z"] }
        return commands.map { CommandLineTool().run(["--data", data] + $0 + ["--json"]).output }
    }

    /// Distinct notifications the App Store sent (the stand-in's history).
    var historyCount: Int {
        get throws { try String(contentsOfFile: simulation + "/history.jsonl", encoding: .utf8).split(separator: "\n").count }
    }

    var eventCount: Int {
        get throws { (try json(["stats"])["events"] as? Int) ?? -1 }
    }
}
