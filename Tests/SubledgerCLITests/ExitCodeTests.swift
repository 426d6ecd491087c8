import Foundation
import SubledgerCLI
import SubledgerTestSupport
import Testing

/// The contract's exit codes: 0 success, 1 ran but failed, 2 usage, 3 corruption.
@Suite("Exit codes")
struct ExitCodeTests {
    let tool = CommandLineTool(clock: { SimulatedLedger.now })

    @Test("a command line that cannot run as written is a usage error (2)", arguments: [
        [], ["frobnicate"], ["stats", "--bogus"], ["report"], ["report", "profit"], ["customer"],
        ["report", "revenue", "--from", "2026-13-01", "--to", "2026-02-01"], ["report", "revenue", "--to", "2026-02-01"],
        ["report", "mrr", "--at", "yesterday"], ["report", "churn", "--from", "2026-01-01", "--to", "2026-02-01", "--by", "week"],
        ["stats", "--format", "xml"], ["stats", "--json", "--format", "csv"], ["init"],
    ])
    func usage(argv: [String]) {
        #expect(SimulatedLedger.shared.run(argv).exitCode == .usage)
    }

    @Test("a window that ends before it starts is a usage error (2), not an empty answer", arguments: [
        ["report", "revenue", "--from", "2026-03-01", "--to", "2026-02-01"], ["report", "churn", "--from", "2026-03-01", "--to", "2026-02-01"],
        ["report", "cohorts", "--from", "2026-03", "--to", "2026-01"], ["history", "any-customer", "--from", "2026-03-01", "--to", "2026-02-01"],
        ["events", "--from", "2026-03-01", "--to", "2026-02-01"],
    ])
    func reversedWindow(argv: [String]) {
        let (code, output) = SimulatedLedger.shared.run(argv + ["--json"])
        #expect(code == .usage)
        #expect(output.isEmpty)
    }

    @Test("a word no option takes is a usage error (2), not silently dropped", arguments: [
        ["customer", "one-id", "another-id"], ["report", "mrr", "--at", "2026-03-01", "10:00"], ["stats", "junk"],
        ["history", "one-id", "junk"], ["head", "56"], ["verify", "extra"], ["quarantine", "list", "extra"], ["report", "revenue", "extra", "--from", "2026-01-01", "--to", "2026-01-31"],
    ])
    func extraWord(argv: [String]) {
        #expect(SimulatedLedger.shared.run(argv).exitCode == .usage)
    }

    @Test("an environment that no ledger can hold is a usage error (2); a known one in any case is accepted", arguments: [
        (["report", "revenue", "--from", "2026-01-01", "--to", "2026-01-31", "--environment", "Bogus"], ExitCode.usage),
        (["report", "mrr", "--environment", ""], .usage),
        (["events", "--environment", "prod"], .usage),
        (["report", "mrr", "--environment", "PRODUCTION"], .success),
        (["events", "--environment", "production", "--limit", "1"], .success),
    ])
    func environmentNames(argv: [String], expected: ExitCode) {
        #expect(SimulatedLedger.shared.run(argv).exitCode == expected)
    }

    @Test("--data with an empty path is a usage error (2): it would resolve against the root")
    func emptyDataPath() {
        #expect(tool.run(["--data", "", "stats"]).exitCode == .usage)
        #expect(tool.run(["--data=", "init", "--bundle-id", "com.example.subledger"]).exitCode == .usage)
    }

    @Test("export --format json is a usage error (2): export writes csv or jsonl files")
    func exportJSON() {
        let directory = TemporaryDirectory()
        #expect(SimulatedLedger.shared.run("export", "--from", "2026-01-01", "--to", "2026-01-31", "--out", directory.file("out"), "--format", "json").exitCode == .usage)
        #expect(!FileManager.default.fileExists(atPath: directory.file("out")))
    }

    @Test("ingest checks every input before it appends anything: a missing or directory input is a usage error (2) and nothing is ingested")
    func inputsCheckedFirst() throws {
        let directory = TemporaryDirectory()
        let simulation = SimulatedLedger.shared.directory.file("sim")
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.subledger", "--root", simulation + "/root.cer"]).exitCode == .success)
        for missing in [directory.file("missing.jsonl"), simulation] {
            #expect(tool.run(["--data", directory.path, "ingest", simulation + "/notifications.jsonl", missing]).exitCode == .usage)
        }
        let (code, output) = tool.run(["--data", directory.path, "stats", "--json"])
        #expect(code == .success)
        let document = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        #expect(document["messages"] as? Int == 0)
    }

    @Test("a data directory that does not exist is a usage error (2)")
    func missingDirectory() {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.file("missing"), "stats"]).exitCode == .usage)
    }

    @Test("an unknown customer is a failure (1) with nothing on stdout")
    func unknownCustomer() {
        let (code, output) = SimulatedLedger.shared.run("customer", "no-such-customer", "--json")
        #expect(code == .failure)
        #expect(output.isEmpty)
    }

    @Test("ingest exits 1 when a line is rejected, and says why in its JSON")
    func rejectedLine() throws {
        let directory = TemporaryDirectory()
        let root = SimulatedLedger.shared.directory.file("sim/root.cer")
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.subledger", "--root", root]).exitCode == .success)
        try "not a jws\n".write(toFile: directory.file("bad.jsonl"), atomically: true, encoding: .utf8)
        let (code, output) = tool.run(["--data", directory.path, "ingest", directory.file("bad.jsonl"), "--json"])
        #expect(code == .failure)
        let document = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        #expect(document["rejected"] as? Int == 1)
    }

    @Test("verify exits 3 on a flipped byte in the log, naming the file, and so does a report that meets it")
    func corruption() throws {
        let copy = TemporaryDirectory()
        try FileManager.default.copyItem(atPath: SimulatedLedger.shared.data, toPath: copy.file("d"))
        let segment = copy.file("d/log/" + (try FileManager.default.contentsOfDirectory(atPath: copy.file("d/log")).sorted().first { $0.hasSuffix(".seg") }!))
        let handle = try #require(FileHandle(forUpdatingAtPath: segment))
        try handle.seek(toOffset: 200)
        let original = try #require(try handle.read(upToCount: 1)?.first)
        try handle.seek(toOffset: 200)
        try handle.write(contentsOf: [original ^ 0xFF])
        try handle.close()
        let (code, output) = tool.run(["--data", copy.file("d"), "verify", "--json"])
        #expect(code == .corruption)
        let document = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        #expect(document["ok"] as? Bool == false)
        #expect((document["problems"] as? [[String: Any]])?.first?["file"] as? String == segment)
        // Without a snapshot a report folds the whole log, meets the damage and says so.
        try FileManager.default.removeItem(atPath: copy.file("d/projections"))
        #expect(tool.run(["--data", copy.file("d"), "report", "mrr", "--at", "2026-03-01"]).exitCode == .corruption)
    }

    @Test("a freshly initialised ledger answers stats with zeros, and reports, quarantine and verify")
    func emptyLedger() throws {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.subledger"]).exitCode == .success)
        let (code, output) = tool.run(["--data", directory.path, "stats", "--json"])
        #expect(code == .success)
        let document = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        #expect(document["events"] as? Int == 0)
        #expect(document["messages"] as? Int == 0)
        #expect(document["customers"] as? Int == 0)
        for argv in [["report", "mrr"], ["report", "revenue", "--from", "2026-01-01", "--to", "2026-01-31"], ["stats"], ["quarantine", "list"], ["verify"]] {
            #expect(tool.run(["--data", directory.path] + argv).exitCode == .success, "\(argv) on an empty ledger")
        }
    }
}
