import Foundation
import SubledgerCLI
import Synchronization
import SubledgerTestSupport

/// A ledger built by the commands themselves, in process, from the simulation the golden files
/// were made from (Tools/cli-golden/generate.sh): 40 customers over four months, with
/// duplicated and late deliveries, ingested under a fixed clock.
final class SimulatedLedger: Sendable {
    /// 2027-01-15T08:00:00Z: the clock the golden files were made under.
    static let now: Int64 = 1_800_000_000_000
    static let shared = SimulatedLedger()

    let directory = TemporaryDirectory(sharedByProcess: true)
    let tool = CommandLineTool(clock: { SimulatedLedger.now })
    /// What `ingest --json` printed.
    let ingestOutput: String
    /// The first three customer ids of the simulation's ground truth, sorted.
    let customerIds: [String]

    var data: String { directory.file("d") }

    private init() {
        let simulation = directory.file("sim")
        let tool = self.tool
        func must(_ argv: [String]) -> String {
            let (code, output) = tool.run(argv)
            precondition(code == .success, "\(argv.joined(separator: " ")) exited \(code)")
            return output
        }
        _ = must(["simulate", "--customers", "40", "--months", "4", "--seed", "5", "--start", "2026-01-01", "--duplicates", "0.05", "--reorder", "0.1", "--out", simulation, "--json"])
        _ = must(["--data", directory.file("d"), "init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890", "--root", simulation + "/root.cer", "--json"])
        ingestOutput = must(["--data", directory.file("d"), "ingest", simulation + "/notifications.jsonl", "--json"])
        let expected = try! JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: simulation + "/expected.json"))) as! [String: Any]
        customerIds = Array((expected["customers"] as! [String: Any]).keys.sorted().prefix(3))
    }

    /// LMDB allows one open environment per file and process, and the read commands open the
    /// snapshot's: tests in one process take turns on this ledger, as separate processes may not need to.
    private let turns = Mutex(())

    /// Runs a command against this ledger.
    func run(_ argv: String...) -> (exitCode: ExitCode, output: String) {
        run(argv)
    }

    func run(_ argv: [String]) -> (exitCode: ExitCode, output: String) {
        turns.withLock { _ in tool.run(["--data", data] + argv) }
    }

    /// Runs a command as if the wall clock read `now` (epoch milliseconds).
    func run(_ argv: [String], at now: Int64) -> (exitCode: ExitCode, output: String) {
        turns.withLock { _ in CommandLineTool(clock: { now }).run(["--data", data] + argv) }
    }

    /// The command's JSON document, decoded.
    func json(_ argv: String...) throws -> [String: Any] {
        try json(argv)
    }

    func json(_ argv: [String]) throws -> [String: Any] {
        let (code, output) = run(argv + ["--json"])
        guard code == .success else { throw Failure("\(argv.joined(separator: " ")) exited \(code)") }
        return try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }
}
