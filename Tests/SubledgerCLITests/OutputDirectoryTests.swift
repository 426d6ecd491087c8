import Foundation
import SubledgerCLI
import SubledgerTestSupport
import Testing

/// A command told to write into a directory makes it, parents included, as `init --data` always
/// has: a new user's first `demo --data ~/try/subledger` should not stop at a missing parent.
@Suite("Directories to write into")
struct OutputDirectoryTests {
    let tool = CommandLineTool(clock: { SimulatedLedger.now })

    @Test("simulate --out creates the directory and its missing parents")
    func simulateCreatesParents() {
        let directory = TemporaryDirectory()
        let out = directory.file("new/nested/workload")
        let (code, _) = tool.run(["simulate", "--customers", "3", "--months", "1", "--seed", "1", "--out", out, "--json"])
        #expect(code == .success)
        #expect(FileManager.default.fileExists(atPath: out + "/notifications.jsonl"))
    }

    @Test("export --out creates the directory and its missing parents")
    func exportCreatesParents() {
        let directory = TemporaryDirectory()
        let out = directory.file("warehouse/2026/q1")
        let (code, _) = SimulatedLedger.shared.run("export", "--from", "2026-01-01", "--to", "2026-03-31", "--out", out)
        #expect(code == .success)
        #expect(FileManager.default.fileExists(atPath: out + "/transactions.csv"))
    }

    @Test("a file where a directory must go is a failure (1), with nothing on stdout")
    func fileInTheWay() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("taken")
        try Data("not a directory".utf8).write(to: URL(fileURLWithPath: file))
        let (code, output) = tool.run(["simulate", "--customers", "3", "--months", "1", "--seed", "1", "--out", file + "/workload"])
        #expect(code == .failure)
        #expect(output.isEmpty)
    }
}
