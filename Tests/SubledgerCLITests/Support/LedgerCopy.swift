import Foundation
import SubledgerCLI
import SubledgerTestSupport

/// A copy of the simulated ledger that a test may damage: the shared one stays intact.
struct LedgerCopy {
    let directory = TemporaryDirectory()
    let tool = CommandLineTool(clock: { SimulatedLedger.now })
    var data: String { directory.file("d") }

    init() throws {
        try FileManager.default.copyItem(atPath: SimulatedLedger.shared.data, toPath: directory.file("d"))
    }

    func run(_ argv: String...) -> (exitCode: ExitCode, output: String) {
        tool.run(["--data", data] + argv)
    }

    /// The first segment file of one of the data directory's logs (`log`, `evidence`, `quarantine`).
    func firstSegment(of log: String) throws -> String {
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.file("d/" + log)).filter { $0.hasSuffix(".seg") }.sorted()
        return directory.file("d/\(log)/\(names[0])")
    }
}
