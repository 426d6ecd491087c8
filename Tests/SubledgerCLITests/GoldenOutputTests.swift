import Foundation
import SubledgerCLI
import Testing

/// Every JSON document the commands print is the contract: these must stay byte-identical to
/// what the binary printed before the output layer was rewritten (Golden/, made by
/// Tools/cli-golden/generate.sh on the same simulation and clock).
@Suite("JSON output is byte-identical to the golden files")
struct GoldenOutputTests {
    static let golden = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden")

    static func golden(_ name: String) throws -> String {
        try String(contentsOf: golden.appendingPathComponent(name), encoding: .utf8)
    }

    static let reports: [(file: String, argv: [String])] = [
        ("report-revenue.json", ["report", "revenue", "--from", "2026-01-01", "--to", "2026-04-30", "--json"]),
        ("report-revenue-by-day-by-product.json", ["report", "revenue", "--from", "2026-01-01", "--to", "2026-04-30", "--by", "day", "--by-product", "--refunds", "original", "--json"]),
        ("report-mrr.json", ["report", "mrr", "--at", "2026-03-01", "--json"]),
        ("report-churn.json", ["report", "churn", "--from", "2026-01-01", "--to", "2026-04-30", "--json"]),
        ("report-cohorts.json", ["report", "cohorts", "--from", "2026-01", "--to", "2026-04", "--json"]),
    ]

    @Test("ingest --json")
    func ingest() throws {
        #expect(SimulatedLedger.shared.ingestOutput == (try Self.golden("ingest.json")))
    }

    @Test("report --json", arguments: reports.map(\.file))
    func report(file: String) throws {
        let argv = Self.reports.first { $0.file == file }!.argv
        let (code, output) = SimulatedLedger.shared.run(argv)
        #expect(code == .success)
        #expect(output == (try Self.golden(file)))
    }

    @Test("customer --json at two instants, and history --json, for three customers", arguments: 1...3)
    func customer(number: Int) throws {
        let ledger = SimulatedLedger.shared
        let id = ledger.customerIds[number - 1]
        #expect(ledger.run("customer", id, "--as-of", "2026-04-30T23:59:59.999Z", "--json").output == (try Self.golden("customer-\(number).json")))
        #expect(ledger.run("customer", id, "--as-of", "2026-06-01", "--json").output == (try Self.golden("customer-\(number)-later.json")))
        #expect(ledger.run("history", id, "--json").output == (try Self.golden("history-\(number).json")))
    }

    /// The simulation's signatures differ from run to run, so the evidence's size does too; the
    /// database's pages and the disk's free space are the machine's.
    @Test("stats --json, but for the evidence's size, the database's and the free disk")
    func stats() throws {
        let output = SimulatedLedger.shared.run("stats", "--json").output
        var stable = output
        for field in ["evidenceBytes", "projectionBytes", "diskFree"] {
            let without = stable.replacingOccurrences(of: "\"\(field)\":\\d+,", with: "", options: .regularExpression)
            #expect(without != stable, "\(field) is there")
            stable = without
        }
        #expect(stable == (try Self.golden("stats.json")), "stats printed \(output)")
    }
}
