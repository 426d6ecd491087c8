import Dispatch
import Foundation
import Synchronization
import SubledgerCLI
import SubledgerCore
import SubledgerLedger
import SubledgerLog
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
        ["stats", "--format", "xml"], ["stats", "--json", "--format", "csv"], ["init", "--app-apple-id", "none"], ["serve", "--listen", ":18513"],
    ])
    func usage(argv: [String]) {
        #expect(SimulatedLedger.shared.run(argv).exitCode == .usage)
    }

    @Test("an appstore command's mistyped value is a usage error (2) before the missing credentials (1) are", arguments: [
        ["appstore", "reconcile", "--limit", "x"], ["appstore", "test-notification", "--wait", "-1"],
        ["appstore", "recover", "--since", "last tuesday"], ["appstore", "backfill"], ["appstore", "backfill", "--ids", "/nonexistent/ids.txt"],
        ["appstore", "recover", "--environment", "Staging"], ["appstore", "reconcile", "--environment", "Sandbox"],
    ])
    func appstoreValuesBeforeCredentials(argv: [String]) {
        #expect(SimulatedLedger.shared.run(argv).exitCode == .usage)
    }

    @Test("a window that ends before it starts is a usage error (2), not an empty answer", arguments: [
        ["report", "revenue", "--from", "2026-03-01", "--to", "2026-02-01"], ["report", "churn", "--from", "2026-03-01", "--to", "2026-02-01"],
        ["report", "cohorts", "--from", "2026-03", "--to", "2026-01"], ["history", "any-customer", "--from", "2026-03-01", "--to", "2026-02-01"],
        ["events", "--from", "2026-03-01", "--to", "2026-02-01"], ["events", "--from", "2026-03-15", "--to", "2026-03-14"],
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

    @Test("commands that take any number of words take them: ingest's files, appstore backfill's ids")
    func anyNumberOfWords() throws {
        // Past the words, backfill stops at the missing credentials (1), not at a usage error.
        #expect(SimulatedLedger.shared.run("appstore", "backfill", "2000000000000001", "2000000000000002").exitCode == .failure)
        let directory = TemporaryDirectory()
        let simulation = SimulatedLedger.shared.directory.file("sim")
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.subledger", "--root", simulation + "/root.cer"]).exitCode == .success)
        let files = Array(repeating: simulation + "/notifications.jsonl", count: 3)
        #expect(tool.run(["--data", directory.path, "ingest"] + files).exitCode == .success)
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

    @Test("--at-position is where the log ended: a record's position or the log's end; inside a record or past the end it is a usage error (2)")
    func atPositionBoundaries() throws {
        let head = try SimulatedLedger.shared.json("head")
        let endText = try #require(head["logEnd"] as? String)
        let lastText = try #require(try SimulatedLedger.shared.json("stats")["lastPosition"] as? String)
        let (end, last) = (try #require(UInt64(endText)), try #require(UInt64(lastText)))
        let report = ["report", "revenue", "--from", "2026-01-01", "--to", "2026-04-30", "--at-position"]
        for (position, expected) in [(last, ExitCode.success), (end, .success), (last + 1, .usage), (end + 1, .usage), (0, .success), (1, .usage)] {
            #expect(SimulatedLedger.shared.run(report + [String(position)]).exitCode == expected, "\(position)")
        }
    }

    @Test("a report asked --at-position says so, in its JSON (atPosition) and its table, with the same rows; one of the ledger as it stands has neither", arguments: [
        ["report", "revenue", "--from", "2026-01-01", "--to", "2026-04-30"], ["report", "mrr", "--at", "2026-03-01"],
        ["report", "churn", "--from", "2026-01-01", "--to", "2026-04-30"], ["report", "cohorts", "--from", "2026-01", "--to", "2026-04"],
    ])
    func reportsEchoTheirPosition(argv: [String]) throws {
        let end = try #require(try SimulatedLedger.shared.json("head")["logEnd"] as? String)
        let now = try SimulatedLedger.shared.json(argv)
        let then = try SimulatedLedger.shared.json(argv + ["--at-position", end])
        #expect(now["atPosition"] == nil)
        #expect(then["atPosition"] as? String == end)
        #expect(NSDictionary(dictionary: now).isEqual(to: then.filter { $0.key != "atPosition" }))
        #expect(SimulatedLedger.shared.run(argv + ["--at-position", end]).output.contains("as of log position  \(end)"))
        #expect(!SimulatedLedger.shared.run(argv).output.contains("as of log position"))
    }

    @Test("stats and verify count the same segments: every log's, quarantine too")
    func segmentsAgree() throws {
        let stats = try SimulatedLedger.shared.json("stats")
        let verify = try SimulatedLedger.shared.json("verify")
        #expect(stats["segments"] as? Int == verify["segments"] as? Int)
    }

    @Test("customer --at-position tells the state as the ledger told it when its log ended there, and says which position")
    func customerAtPosition() throws {
        let id = SimulatedLedger.shared.customerIds[0]
        let history = try SimulatedLedger.shared.json("history", id)
        let positions = try #require((history["events"] as? [[String: Any]])?.compactMap { ($0["position"] as? String).flatMap(UInt64.init) }.sorted())
        let head = try SimulatedLedger.shared.json("head")
        let end = try #require(head["logEnd"] as? String)
        // Before its first event the ledger knew nothing of the customer; at the log's end, all.
        #expect(SimulatedLedger.shared.run(["customer", id, "--at-position", String(positions[0])]).exitCode == .failure)
        #expect(SimulatedLedger.shared.run(["customer", id, "--at-position", String(positions[1]), "--json"]).exitCode == .success)
        // The same answer, saying which position it is for, as reports at a position do.
        var atEnd = try SimulatedLedger.shared.json("customer", id, "--at-position", end)
        #expect(atEnd.removeValue(forKey: "atPosition") as? String == end)
        let now = try SimulatedLedger.shared.json("customer", id)
        #expect(now["atPosition"] == nil)
        #expect(NSDictionary(dictionary: atEnd).isEqual(to: now))
        #expect(SimulatedLedger.shared.run(["customer", id, "--at-position", end]).output.contains("as of log position  \(end)"))
        #expect(SimulatedLedger.shared.run(["customer", id, "--at-position", String(positions[0] + 1)]).exitCode == .usage)
    }

    @Test("on a ledger nothing was ingested into, --at-position takes only where a log starts")
    func atPositionOnAnEmptyLedger() {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.subledger"]).exitCode == .success)
        let report = ["--data", directory.path, "report", "revenue", "--from", "2026-01-01", "--to", "2026-04-30", "--at-position"]
        #expect(tool.run(report + ["0"]).exitCode == .success)
        #expect(tool.run(report + ["1000"]).exitCode == .usage)
    }

    @Test("a byte order mark before a blank first line, or alone in a file, is not a line", arguments: ["\u{FEFF}\n", "\u{FEFF}\r\n", "\u{FEFF}"])
    func byteOrderMarkAlone(prefix: String) throws {
        let directory = TemporaryDirectory()
        let simulation = SimulatedLedger.shared.directory.file("sim")
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.subledger", "--root", simulation + "/root.cer"]).exitCode == .success)
        let line = try String(contentsOfFile: simulation + "/notifications.jsonl", encoding: .utf8).split(separator: "\n")[0]
        for (name, content) in [("lead.jsonl", prefix + line + "\n"), ("alone.jsonl", prefix)] {
            try content.write(toFile: directory.file(name), atomically: true, encoding: .utf8)
            let (code, output) = tool.run(["--data", directory.path, "ingest", directory.file(name), "--json"])
            #expect(code == .success, "\(name): \(output)")
        }
    }

    @Test("a JSON array of App Store bodies, on one line or pretty-printed, is rejected as malformed_json saying to give one a line")
    func jsonArrayNamed() throws {
        let directory = TemporaryDirectory()
        let simulation = SimulatedLedger.shared.directory.file("sim")
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.subledger", "--root", simulation + "/root.cer"]).exitCode == .success)
        let line = try String(contentsOfFile: simulation + "/notifications.jsonl", encoding: .utf8).split(separator: "\n")[0]
        try ("[" + line + "]\n[\n" + line + "\n").write(toFile: directory.file("array.json"), atomically: true, encoding: .utf8)
        let (code, output) = tool.run(["--data", directory.path, "ingest", directory.file("array.json"), "--json"])
        #expect(code == .failure)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let rejections = try #require(document["rejections"] as? [[String: Any]])
        #expect(rejections.map { $0["line"] as? Int } == [1, 2])
        for rejection in rejections {
            #expect(rejection["reason"] as? String == "malformed_json")
            #expect((rejection["detail"] as? String)?.contains("a JSON array") == true, "\(rejection)")
        }
        #expect(document["appended"] as? Int == 1)
    }

    @Test("an option given twice is a usage error (2), not the last one silently winning; those that repeat by design still do", arguments: [
        (["report", "revenue", "--from", "2026-01-01", "--from", "2026-02-01", "--to", "2026-03-31"], ExitCode.usage),
        (["report", "revenue", "--from", "2026-01-01", "--to", "2026-03-31", "--by", "day", "--by", "month"], .usage),
        (["stats", "--format", "csv", "--format", "json"], .usage),
        (["events", "--type", "renewed", "--type", "refunded", "--limit", "3"], .success),
    ])
    func optionGivenTwice(argv: [String], expected: ExitCode) {
        #expect(SimulatedLedger.shared.run(argv).exitCode == expected)
    }

    @Test("an event type is taken in any case, as notification types are; an unknown one is a usage error (2)", arguments: [
        (["events", "--type", "Refunded", "--limit", "1"], ExitCode.success), (["events", "--type", "SUBSCRIPTIONSTARTED", "--limit", "1"], .success),
        (["events", "--type", "refundd"], .usage),
    ])
    func eventTypesInAnyCase(argv: [String], expected: ExitCode) {
        #expect(SimulatedLedger.shared.run(argv).exitCode == expected)
    }

    @Test("--data given twice is a usage error (2): which directory was meant cannot be guessed")
    func dataGivenTwice() {
        #expect(tool.run(["--data", "one", "--data", "two", "stats"]).exitCode == .usage)
    }

    @Test("a simulator's workload directory given as --data is not a data directory: a usage error (2)")
    func workloadIsNotADataDirectory() throws {
        let simulation = SimulatedLedger.shared.directory.file("sim")
        #expect(FileManager.default.fileExists(atPath: simulation + "/config.json"))
        #expect(tool.run(["--data", simulation, "stats"]).exitCode == .usage)
        #expect {
            try LedgerConfiguration.load(from: simulation)
        } throws: { error in
            let message = "\(error)"
            return message.contains("is not a Subledger data directory: its config.json has no \"environments\"") && message.contains("written by `simulate --out`")
        }
    }

    @Test("ingest stopped by a full disk after storing some batches prints its document, with what was stored and the error, and exit 1",
          .enabled(if: SmallFilesystem.isAvailable, "\(SmallFilesystem.missing)"))
    func fullDiskMidwayKeepsTheCount() throws {
        let filesystem = try #require(SmallFilesystem(size: "4m"), "mounting a tmpfs failed")
        let tool = CommandLineTool(clock: { SimulatedLedger.now })
        let data = ["--data", filesystem.path + "/d"]
        // About 10 MB of signed messages for a 4 MB disk.
        let simulation = TemporaryDirectory()
        #expect(tool.run(["simulate", "--customers", "600", "--months", "6", "--seed", "12", "--out", simulation.file("sim")]).exitCode == .success)
        #expect(tool.run(data + ["init", "--bundle-id", "com.example.subledger", "--root", simulation.file("sim/root.cer")]).exitCode == .success)
        let (code, output) = tool.run(data + ["ingest", simulation.file("sim/notifications.jsonl"), "--json"])
        #expect(code == .failure)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
        let appended = try #require(document["appended"] as? Int)
        #expect(appended > 0, "\(document)")
        #expect((document["error"] as? String)?.contains("disk full") == true, "\(document)")
        // The lines of the batch the disk filled under were read, and their outcome is unknown:
        // counted as read, they showed in no other count.
        let inFlight = try #require(document["inFlight"] as? Int, "\(document)")
        #expect(inFlight > 0, "\(document)")
        let error = try #require(document["error"] as? String)
        #expect(error.contains("stopped after \(appended) lines were appended") && error.contains("Of the \(inFlight) lines read after them, in flight"), "\(error)")
    }

    @Test("verify, head and quarantine list of a directory nobody ran init in are usage errors (2) saying so, not an ok of nothing", arguments: [["verify"], ["head"], ["quarantine", "list"]])
    func uninitialisedDirectoryIsNoLedger(_ command: [String]) throws {
        let directory = TemporaryDirectory()
        let (code, output) = CommandLineTool(clock: { SimulatedLedger.now }).run(["--data", directory.path] + command + ["--json"])
        #expect(code == .usage, "\(command): \(output)")
        #expect(!output.contains("\"ok\":true"))
    }

    @Test("a gzip-compressed file given to ingest is a usage error (2) naming it, and nothing is ingested or quarantined")
    func gzipRefused() throws {
        let directory = TemporaryDirectory()
        let simulation = SimulatedLedger.shared.directory.file("sim")
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.subledger", "--root", simulation + "/root.cer"]).exitCode == .success)
        try Data([0x1F, 0x8B, 0x08, 0x00] + Array(repeating: UInt8(7), count: 100)).write(to: URL(fileURLWithPath: directory.file("n.jsonl.gz")))
        #expect(tool.run(["--data", directory.path, "ingest", directory.file("n.jsonl.gz")]).exitCode == .usage)
        let quarantined = (try? FileManager.default.contentsOfDirectory(atPath: directory.file("quarantine"))) ?? []
        #expect(quarantined.allSatisfy { !$0.hasSuffix(".seg") }, "\(quarantined)")
    }

    @Test("ingest's CSV is the rejections under one header, whether there were any or not")
    func ingestCSVLayout() throws {
        let directory = TemporaryDirectory()
        let simulation = SimulatedLedger.shared.directory.file("sim")
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.subledger", "--root", simulation + "/root.cer"]).exitCode == .success)
        let line = try String(contentsOfFile: simulation + "/notifications.jsonl", encoding: .utf8).split(separator: "\n")[0]
        try (line + "\n").write(toFile: directory.file("good.jsonl"), atomically: true, encoding: .utf8)
        try (line + "\nnot a signed payload\n").write(toFile: directory.file("bad.jsonl"), atomically: true, encoding: .utf8)
        let clean = tool.run(["--data", directory.path, "ingest", directory.file("good.jsonl"), "--format", "csv"])
        #expect(clean.exitCode == .success)
        #expect(clean.output == "line,source,reason,detail\r\n")
        let rejected = tool.run(["--data", directory.path, "ingest", directory.file("bad.jsonl"), "--format", "csv"])
        #expect(rejected.exitCode == .failure)
        #expect(rejected.output.hasPrefix("line,source,reason,detail\r\n2,"), "\(rejected.output)")
    }

    @Test("export's --format names its files' format: json or table there is a usage error (2); --json prints its summary as JSON")
    func exportFormats() throws {
        let directory = TemporaryDirectory()
        for format in ["json", "table"] {
            #expect(SimulatedLedger.shared.run("export", "--from", "2026-01-01", "--to", "2026-01-31", "--out", directory.file(format), "--format", format).exitCode == .usage)
            #expect(!FileManager.default.fileExists(atPath: directory.file(format)))
        }
        let (code, output) = SimulatedLedger.shared.run("export", "--from", "2026-01-01", "--to", "2026-01-31", "--out", directory.file("summary"), "--json")
        #expect(code == .success)
        #expect((try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])?["format"] as? String == "csv")
    }

    @Test("--data with an empty path is a usage error (2): it would resolve against the root")
    func emptyDataPath() {
        #expect(tool.run(["--data", "", "stats"]).exitCode == .usage)
        #expect(tool.run(["--data=", "init", "--bundle-id", "com.example.subledger"]).exitCode == .usage)
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

    @Test("a directory nobody ran init in is a usage error (2) too, and the remedy asks for no root (production trusts Apple's)", arguments: [
        ["stats"], ["report", "revenue", "--from", "2026-01-01", "--to", "2026-01-31"], ["ingest", "-"],
    ])
    func directoryWithoutInit(argv: [String]) throws {
        let directory = TemporaryDirectory()
        try FileManager.default.createDirectory(atPath: directory.file("plain"), withIntermediateDirectories: false)
        #expect(tool.run(["--data", directory.file("plain")] + argv).exitCode == .usage)
        #expect {
            try LedgerConfiguration.load(from: directory.file("plain"))
        } throws: { error in
            let message = "\(error)"
            return message.contains("run `subledger init --bundle-id ID` first") && !message.contains("--root CERT`")
        }
    }

    @Test("simulate into a ledger's data directory is a usage error (2) and leaves its config.json; into its own output again it goes")
    func simulateIntoALedger() throws {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.file("data"), "init", "--bundle-id", "com.example.subledger"]).exitCode == .success)
        let before = try Data(contentsOf: URL(fileURLWithPath: directory.file("data/config.json")))
        #expect(tool.run(["simulate", "--customers", "3", "--months", "1", "--out", directory.file("data")]).exitCode == .usage)
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("data/config.json"))) == before)
        for _ in 0..<2 { #expect(tool.run(["simulate", "--customers", "3", "--months", "1", "--out", directory.file("sim")]).exitCode == .success) }
    }

    @Test("demo into a data directory that holds anything is a usage error (2), and leaves it as it was")
    func demoNeedsANewDirectory() throws {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.file("data"), "init", "--bundle-id", "com.example.subledger"]).exitCode == .success)
        let before = try FileManager.default.contentsOfDirectory(atPath: directory.file("data")).sorted()
        #expect(tool.run(["--data", directory.file("data"), "demo"]).exitCode == .usage)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("data")).sorted() == before)
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

/// Damage is found wherever it is: `verify` names it and exits 3, as every command that meets it does.
@Suite("Damage found")
struct DamageTests {
    @Test("verify exits 3 on a flipped byte in the quarantine log, naming the file, as the commands reading it do")
    func damagedQuarantine() throws {
        let copy = try LedgerCopy()
        try "not a jws\nnor this\n".write(toFile: copy.directory.file("bad.jsonl"), atomically: true, encoding: .utf8)
        #expect(copy.run("ingest", copy.directory.file("bad.jsonl")).exitCode == .failure)
        let segment = try copy.firstSegment(of: "quarantine")
        #expect(copy.run("verify").exitCode == .success)
        try flipByte(in: segment, at: 70)  // inside the first entry's frame, the second intact after it
        let (code, output) = copy.run("verify", "--json")
        #expect(code == .corruption)
        let document = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        #expect(document["ok"] as? Bool == false)
        let problems = try #require(document["problems"] as? [[String: Any]])
        #expect(problems.map { $0["file"] as? String } == [segment])
        #expect(problems.first?["kind"] as? String == "crc_mismatch")
        #expect(copy.run("quarantine", "list").exitCode == .corruption)
    }

    @Test("the last event rewritten with its checksum fixed so that it no longer decodes: verify names it once (exit 3, with its JSON); stats, head, ingest and serve exit 3, where verify and stats, then ingest and serve, exited 1")
    func undecodableLastEvent() throws {
        let copy = try LedgerCopy()
        let (last, path) = try Self.makeLastEventUndecodable(copy)

        let (code, output) = copy.run("verify", "--json")
        #expect(code == .corruption)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let problems = try #require(document["problems"] as? [[String: Any]])
        #expect(problems.count == 1 && problems.first?["kind"] as? String == "bad_event" && problems.first?["file"] as? String == path, "\(problems)")
        #expect((problems.first?["detail"] as? String)?.contains("position \(last)") == true)
        #expect(copy.run("stats").exitCode == .corruption)
        #expect(copy.run("head").exitCode == .corruption)
        // The writers' open reads the last event for where its evidence ends.
        #expect(copy.run("ingest", "/dev/null").exitCode == .corruption)
        let (status, said) = try Self.serveUntilItStops(data: copy.data)
        #expect(status == ExitCode.corruption.rawValue, "\(said)")
        #expect(said.contains("position \(last)") && !said.contains("listening on"), "\(said)")
    }

    /// Rewrites the last event record of `copy`'s log with its checksum fixed so that it no
    /// longer decodes; returns its position and segment file.
    static func makeLastEventUndecodable(_ copy: LedgerCopy) throws -> (LogPosition, String) {
        let log = LogReader(directory: copy.data + "/log")
        let last = try #require(try log.summary().lastPosition)
        let (path, offset) = try log.place(of: last)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let at = Int(offset)
        // The frame's header (length, CRC, kind, version), the recorded time, the type code, then
        // the event's layout version: one no build has written.
        bytes[at + 20] = 9
        let length = Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16
        let crc = bytes[(at + 8)..<(at + 10 + length)].withUnsafeBytes { CRC32C.checksum($0) }
        let masked = ((crc >> 15) | (crc << 17)) &+ 0xA282_EAD8
        for index in 0..<4 { bytes[at + 4 + index] = UInt8(truncatingIfNeeded: masked >> (8 * index)) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return (last, path)
    }

    @Test("serve whose rebuild of the projection database on open fails stops, after listening, with exit 1 and why, as a failed start does; as it starts it says that no backup of the ledger is noted")
    func serveRebuildFailing() throws {
        let copy = try LedgerCopy()
        // A file where the projections directory goes: no database can be written there.
        try FileManager.default.removeItem(atPath: copy.data + "/projections")
        #expect(FileManager.default.createFile(atPath: copy.data + "/projections", contents: Data("not a directory".utf8)))
        let (status, said) = try Self.serveUntilItStops(data: copy.data)
        #expect(status == ExitCode.failure.rawValue, "\(said)")
        #expect(said.contains("serve: listening on"), "\(said)")
        // A ledger that has stored events and whose backups never ran says so as it starts.
        #expect(said.contains("serve: no backup of this ledger is noted as completed"), "\(said)")
        #expect(said.contains("serve: could not rebuild the projection database (the projection database is damaged"), "\(said)")
        #expect(said.contains("stopping (exit 1)"), "\(said)")
    }

    @Test("serve whose rebuild on open meets a damaged event record stops, after listening, with exit 3, as verify would; as it starts it says when the last backup completed, and where to")
    func serveRebuildMeetingDamage() throws {
        let ledger = try Self.ledgerWithDamagedSealedSegment(at: 70)
        try FileManager.default.removeItem(atPath: ledger.data + "/projections")
        // Three days before now, as a backup notes it: the start says when, and where to.
        let threeDaysAgo = Int64(Date().timeIntervalSince1970 * 1000) - 3 * 86_400_000 - 60_000
        try JSONEncoder().encode(LastBackup(completedAt: threeDaysAgo, to: "/var/backups/subledger", logEnd: .start))
            .write(to: URL(fileURLWithPath: DataDirectoryLayout(ledger.data).lastBackup))
        let (status, said) = try Self.serveUntilItStops(data: ledger.data)
        #expect(status == ExitCode.corruption.rawValue, "\(said)")
        #expect(said.contains("serve: listening on"), "\(said)")
        #expect(said.contains("serve: the last backup completed \(UTCInstant.short(threeDaysAgo)) UTC, 3 days ago, to /var/backups/subledger"), "\(said)")
        #expect(said.contains("stopping (exit 3)"), "\(said)")
        #expect(ledger.tool.run(["--data", ledger.data, "verify"]).exitCode == .corruption)
    }

    @Test("serve whose build of the dedup index from the logs meets a damaged event record stops, after listening, with exit 3, as verify would")
    func serveIndexBuildMeetingDamage() throws {
        // Past the first record, which the projection database's open reads.
        let ledger = try Self.ledgerWithDamagedSealedSegment(at: 1_000)
        try FileManager.default.removeItem(atPath: ledger.data + "/dedup")
        let (status, said) = try Self.serveUntilItStops(data: ledger.data)
        #expect(status == ExitCode.corruption.rawValue, "\(said)")
        #expect(said.contains("serve: listening on"), "\(said)")
        #expect(said.contains("serve: while the dedup index is built from the logs, a webhook message waits for it up to 5 s"), "\(said)")
        #expect(said.contains("serve: could not build the dedup index"), "\(said)")
        #expect(said.contains("stopping (exit 3)"), "\(said)")
        #expect(ledger.tool.run(["--data", ledger.data, "verify"]).exitCode == .corruption)
    }

    /// A ledger of the simulated workload in small segments, a byte of its first event segment
    /// flipped at `offset`: that segment is sealed, so the logs' recovery on open, which reads only
    /// the last, leaves the damage for whatever reads the whole log to meet.
    static func ledgerWithDamagedSealedSegment(at offset: UInt64) throws -> (directory: TemporaryDirectory, data: String, tool: CommandLineTool) {
        let directory = TemporaryDirectory()
        let data = directory.file("d")
        let tool = CommandLineTool(clock: { SimulatedLedger.now })
        let simulation = SimulatedLedger.shared.directory.file("sim")
        #expect(tool.run(["--data", data, "init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890", "--root", simulation + "/root.cer"]).exitCode == .success)
        let lines = try String(contentsOfFile: simulation + "/notifications.jsonl", encoding: .utf8).split(separator: "\n")
        let ledger = try Ledger(directory: data, logOptions: LogOptions(segmentSize: 4 << 10, preallocationStep: 0))
        for start in stride(from: 0, to: lines.count, by: 20) {
            let batch = lines[start..<min(start + 20, lines.count)].enumerated().map { IngestLine(bytes: Array($1.utf8), line: start + $0 + 1, source: "sim") }
            _ = try ledger.ingest(batch, recordedAt: SimulatedLedger.now)
        }
        ledger.close()
        let segments = try FileManager.default.contentsOfDirectory(atPath: data + "/log").filter { $0.hasSuffix(".seg") }.sorted()
        try #require(segments.count >= 2)
        try flipByte(in: data + "/log/" + segments[0], at: offset)
        return (directory, data, tool)
    }

    /// Runs `subledger serve` on `data` until it stops by itself: its exit status and stderr.
    private static func serveUntilItStops(data: String) throws -> (status: Int32, said: String) {
        let process = Process()
        process.executableURL = Conformance.subledgerBinary
        process.arguments = ["--data", data, "serve", "--listen", "127.0.0.1:0"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let ended = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            process.waitUntilExit()
            ended.signal()
        }
        guard ended.wait(timeout: .now() + 60) == .success else {
            process.terminate()
            Issue.record("serve did not stop within 60 s")
            return (-1, "")
        }
        return (process.terminationStatus, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    @Test("a record of a kind the event log does not hold (appended by another program, or a newer build) is damage: verify names it, and head does not publish a digest ending at it")
    func foreignRecordInEventLog() throws {
        let copy = try LedgerCopy()
        let writer = try LogWriter(directory: copy.data + "/log")
        let foreign = try writer.append([LogRecord(kind: 7, payload: Array("not an event".utf8))])
        writer.close()
        let (code, output) = copy.run("verify", "--json")
        #expect(code == .corruption)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let problems = try #require(document["problems"] as? [[String: Any]])
        #expect(problems.map { $0["kind"] as? String } == ["bad_event"], "\(problems)")
        #expect((problems.first?["detail"] as? String)?.contains("a record of kind 7, which the event log does not hold") == true, "\(problems)")
        #expect((problems.first?["detail"] as? String)?.contains("position \(foreign[0])") == true)
        #expect(copy.run("head", "--json") == (.corruption, ""))
        #expect(copy.run("stats").exitCode == .corruption)
        // A head claimed at it: the record is named once, by its segment and offset.
        let (checked, report) = copy.run("verify", "--head", String(repeating: "0", count: 64), "--at", String(foreign[0].rawValue), "--json")
        #expect(checked == .corruption)
        let named = try #require((try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])?["problems"] as? [[String: Any]])
        #expect(named.count == 1 && named.first?["kind"] as? String == "bad_event", "\(named)")
        #expect((named.first?["file"] as? String)?.hasSuffix(".seg") == true, "\(named)")
    }

    @Test("the evidence log put in place of the event log: verify names its first 100 records that hold no event one by one and counts the rest in one problem, where it named every one")
    func anotherLogInPlaceOfTheEventLog() throws {
        let copy = try LedgerCopy()
        let records = try LogReader(directory: copy.data + "/evidence").summary().records
        try #require(records > 110, "enough records to pass the bound")
        try FileManager.default.removeItem(atPath: copy.data + "/log")
        try FileManager.default.copyItem(atPath: copy.data + "/evidence", toPath: copy.data + "/log")
        let (code, output) = copy.run("verify", "--json")
        #expect(code == .corruption)
        let problems = try #require((try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])?["problems"] as? [[String: Any]])
        let details = problems.compactMap { $0["detail"] as? String }
        #expect(details.count > 100 && details.prefix(100).allSatisfy { $0.contains("which the event log does not hold") }, "\(problems.count) problems")
        #expect(details.contains { $0.contains("\(records - 100) records from position") && $0.contains("is this directory the ledger's event log?") }, "\(details.suffix(3))")
        // The 100, the count of the rest, and the last record, which the evidence coverage check names too.
        #expect(problems.count == 102)
    }

    @Test("head exits 3 and prints no digest when the evidence it would cover is damaged")
    func damagedEvidenceHead() throws {
        let copy = try LedgerCopy()
        let (healthy, _) = copy.run("head", "--json")
        #expect(healthy == .success)
        try flipByte(in: try copy.firstSegment(of: "evidence"), at: 70)
        let (code, output) = copy.run("head", "--json")
        #expect(code == .corruption)
        #expect(output.isEmpty)
        #expect(copy.run("verify").exitCode == .corruption)
    }

    @Test("a backup that meets damage exits 3 with its JSON, and its copy answers verify, reads and writes with exit 3, not as a healthy ledger")
    func failedBackup() throws {
        let copy = try LedgerCopy()
        try flipByte(in: try copy.firstSegment(of: "log"), at: 70)
        let backup = copy.directory.file("backup")
        let (code, output) = copy.run("backup", "--to", backup, "--json")
        #expect(code == .corruption)
        let document = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        #expect(document["complete"] as? Bool == false)
        #expect((document["problems"] as? [[String: Any]])?.isEmpty == false)
        let (verified, report) = copy.tool.run(["--data", backup, "verify", "--json"])
        #expect(verified == .corruption)
        let problems = (try JSONSerialization.jsonObject(with: Data(report.utf8)) as! [String: Any])["problems"] as? [[String: Any]]
        #expect(problems?.contains { ($0["file"] as? String)?.hasSuffix("BACKUP-INCOMPLETE") == true } == true)
        // Nothing is read from it or written into it: a head digest of it would be published as
        // the ledger's, and what was ingested into it lost to the next backup.
        let notifications = SimulatedLedger.shared.directory.file("sim/notifications.jsonl")
        for argv in [["stats"], ["head"], ["quarantine", "list"], ["rebuild"], ["ingest", notifications], ["backup", "--to", copy.directory.file("again")]] {
            #expect(copy.tool.run(["--data", backup] + argv).exitCode == .corruption, "\(argv)")
        }
    }

    @Test("backup into another ledger's data directory is a usage error (2) and changes nothing there")
    func backupIntoAnotherLedger() throws {
        let copy = try LedgerCopy()
        let other = copy.directory.file("other")
        let simulation = SimulatedLedger.shared.directory.file("sim")
        let line = try String(contentsOfFile: simulation + "/notifications.jsonl", encoding: .utf8).split(separator: "\n")[4]
        try (line + "\n").write(toFile: copy.directory.file("one.jsonl"), atomically: true, encoding: .utf8)
        #expect(copy.tool.run(["--data", other, "init", "--bundle-id", "com.example.subledger", "--root", simulation + "/root.cer"]).exitCode == .success)
        #expect(copy.tool.run(["--data", other, "ingest", copy.directory.file("one.jsonl")]).exitCode == .success)
        let log = other + "/log/00000000000000000000.seg"
        let before = try Data(contentsOf: URL(fileURLWithPath: log))
        #expect(copy.run("backup", "--to", other).exitCode == .usage)
        #expect(try Data(contentsOf: URL(fileURLWithPath: log)) == before)
    }

    @Test("events --raw exits 3 when an event's evidence is damaged, instead of leaving signedPayload out")
    func eventsOverDamagedEvidence() throws {
        let copy = try LedgerCopy()
        try flipByte(in: try copy.firstSegment(of: "evidence"), at: 70)
        #expect(copy.run("events", "--format", "jsonl").exitCode == .success)  // the events themselves are intact
        #expect(copy.run("events", "--raw", "--format", "jsonl").exitCode == .corruption)
    }

    @Test("events exits 3 on a damaged event record, not 1 with a position the user never passed")
    func eventsOverDamagedLog() throws {
        let copy = try LedgerCopy()
        try flipByte(in: try copy.firstSegment(of: "log"), at: 70)
        let (code, output) = copy.run("events", "--json")
        #expect(code == .corruption)
        #expect(output.isEmpty)
    }

    @Test("events --json that meets damage after it began printing still prints one document: the events before it, closed with error, and exits 3")
    func eventsJSONCutShortByDamage() throws {
        let copy = try LedgerCopy()
        let segment = try copy.firstSegment(of: "log")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: segment)[.size] as? UInt64)
        try flipByte(in: segment, at: size * 2 / 3)
        // With the evidence, the events before the damage are more than the first chunk printed.
        let (code, output) = copy.run("events", "--json", "--raw")
        #expect(code == .corruption)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect((document["error"] as? String)?.contains("log corrupted") == true)
        #expect(document["next"] == nil)
        let events = try #require(document["events"] as? [[String: Any]])
        let whole = try JSONSerialization.jsonObject(with: Data(SimulatedLedger.shared.run("events", "--json").output.utf8)) as! [String: Any]
        let intact = (whole["events"] as! [[String: Any]]).map { $0["position"] as! String }
        #expect(events.count > 0 && events.count < intact.count)
        #expect(events.map { $0["position"] as! String } == Array(intact.prefix(events.count)))
    }

    @Test("events --after 0 starts at the beginning, as leaving it out does; --after the log's end (head's logEnd) is a usage error (2) naming it, since the next event starts there")
    func afterTheStartAndTheEnd() throws {
        let ledger = SimulatedLedger.shared
        #expect(ledger.run("events", "--after", "0", "--json").output == ledger.run("events", "--json").output)
        let head = try #require(try JSONSerialization.jsonObject(with: Data(ledger.run("head", "--json").output.utf8)) as? [String: Any])
        let logEnd = try #require(head["logEnd"] as? String)
        #expect(ledger.run("events", "--after", logEnd, "--json").exitCode == .usage)
    }

    @Test("a document standard output cannot take (a full disk) is exit 1 saying so, not success with nothing written", arguments: [["stats", "--json"], ["events", "--json"]])
    func fullStandardOutput(argv: [String]) throws {
        let full = try #require(FileHandle(forWritingAtPath: "/dev/full"))
        let (status, said) = try Self.runBinary(["--data", SimulatedLedger.shared.data] + argv, standardOutput: full)
        #expect(status == 1)
        #expect(said.contains("cannot write standard output: No space left on device"))
    }

    @Test("ingest and serve waiting for another command's rebuild on open say so at once, before they fold anything of their own", arguments: ["ingest", "serve"])
    func waitingForAnotherRebuildIsSaid(command: String) throws {
        let copy = try LedgerCopy()
        // What a command rebuilding on open holds: the rebuild lock and the log's writer lock.
        var held: [Int32] = []
        func release() {
            for fd in held { close(fd) }
            held = []
        }
        defer { release() }
        for path in [copy.data + "/projections/REBUILD.lock", copy.data + "/log/LOCK"] {
            let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            #expect(fd >= 0 && flock(fd, LOCK_EX) == 0)
            held.append(fd)
        }
        let process = Process()
        process.executableURL = Conformance.subledgerBinary
        process.arguments = ["--data", copy.data] + (command == "ingest" ? ["ingest", "/dev/null"] : ["serve", "--listen", "127.0.0.1:0"])
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Read on a thread of its own: without the line, the command says nothing until the locks go.
        let first = Mutex("")
        let read = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            let line = String(decoding: errors.fileHandleForReading.availableLine(), as: UTF8.self)
            first.withLock { $0 = line }
            read.signal()
        }
        let saidWhileWaiting = read.wait(timeout: .now() + 20) == .success
        release()
        // Whatever it says after, a server is stopped here; an ingest of nothing ends on its own.
        if command == "serve" { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        // The reader's line, if it came only once the locks went.
        if !saidWhileWaiting { _ = read.wait(timeout: .now() + 20) }
        #expect(saidWhileWaiting)
        #expect(first.withLock { $0 }.contains("another command is rebuilding the projection database; waiting for it"), "\(first.withLock { $0 })")
    }

    @Test("a rebuild under an address-space limit (ulimit -v) too small for its database's map names the limit to raise, and keeps the database in use")
    func addressSpaceLimitIsNamed() throws {
        let copy = try LedgerCopy()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // 3 GB: the ledger's memory fits, a 4 GB map does not.
        process.arguments = ["-c", "ulimit -v 3000000 && exec \"$0\" --data \"$1\" rebuild", Conformance.subledgerBinary.path, copy.data]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(said.contains("ulimit -v") && said.contains("raise it"), "\(said)")
        #expect(copy.run("report", "mrr", "--at", "2026-03-01").exitCode == .success)
    }

    /// The built command run as its own process: its exit status and what it said on stderr.
    static func runBinary(_ arguments: [String], environment: [String: String]? = nil, standardOutput: FileHandle = .nullDevice) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = Conformance.subledgerBinary
        process.arguments = arguments
        if let environment { process.environment = environment }
        process.standardOutput = standardOutput
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, said)
    }

    @Test("a command a message names carries the --data the command line gave, quoted for the shell where it needs it, so it can be run as it stands; without --data it is left as written", arguments: [
        ("/tmp/subledger no such dir", "`subledger --data '/tmp/subledger no such dir' init --bundle-id YOUR_BUNDLE_ID`"),
        ("/tmp/subledger-no-such-dir", "`subledger --data /tmp/subledger-no-such-dir init --bundle-id YOUR_BUNDLE_ID`"),
        ("/tmp/it's $HOME", #"`subledger --data '/tmp/it'\''s $HOME' init --bundle-id YOUR_BUNDLE_ID`"#),
        ("=subledger-no-such-dir", "`subledger --data '=subledger-no-such-dir' init --bundle-id YOUR_BUNDLE_ID`"),
    ])
    func hintsCarryTheDataDirectory(data: String, hint: String) throws {
        #expect(try Self.runBinary(["--data", data, "stats"], environment: ["SUBLEDGER_DATA": data]).stderr.contains(hint))
        #expect(try Self.runBinary(["stats"], environment: ["SUBLEDGER_DATA": data]).stderr.contains("`subledger init --bundle-id YOUR_BUNDLE_ID`"))
    }

    @Test("a command a message names about another directory keeps its own --data: an unfinished backup is not told to back itself up")
    func hintsAboutAnotherDirectoryKeepTheirOwn() throws {
        let directory = TemporaryDirectory()
        try Data().write(to: URL(fileURLWithPath: DataDirectoryLayout(directory.path).incompleteBackup))
        let said = try Self.runBinary(["--data", directory.path, "stats"]).stderr
        #expect(said.contains("`subledger --data LEDGER_DIR backup --to \(directory.path)`"), "\(said)")
        #expect(!said.contains("--data \(directory.path) --data"), "\(said)")
    }

    @Test("the notes under a table name commands with the --data given")
    func tableNotesCarryTheDataDirectory() throws {
        let copy = try LedgerCopy()
        let bad = copy.directory.file("bad.jsonl")
        try "not a notification\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let output = copy.run("ingest", bad).output
        #expect(output.contains("`subledger --data \(copy.data) quarantine list`"), "\(output)")
    }

    @Test("a rejection's detail names commands with the --data given: in ingest's document and in the quarantine's listing, each format")
    func rejectionDetailsCarryTheDataDirectory() throws {
        let directory = TemporaryDirectory()
        let tool = CommandLineTool(clock: { SimulatedLedger.now })
        let data = directory.file("ledger")
        #expect(tool.run(["--data", data, "init", "--bundle-id", "com.example.other", "--root", SimulatedLedger.shared.directory.file("sim/root.cer")]).exitCode == .success)
        let lines = try String(contentsOfFile: SimulatedLedger.shared.directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n").prefix(2)
        try (lines.joined(separator: "\n") + "\n").write(toFile: directory.file("two.jsonl"), atomically: true, encoding: .utf8)
        let hint = "`subledger --data \(data) init --bundle-id`"
        let ingested = tool.run(["--data", data, "ingest", directory.file("two.jsonl"), "--json"])
        #expect(ingested.exitCode == .failure)
        #expect(ingested.output.contains("bundle_mismatch") && ingested.output.contains(hint), "\(ingested.output)")
        for format in ["table", "json", "jsonl", "csv"] {
            let listed = tool.run(["--data", data, "quarantine", "list", "--format", format, "--wide"].filter { format == "table" || $0 != "--wide" })
            #expect(listed.output.contains(hint), "\(format): \(listed.output)")
        }
    }

    @Test("root is refused the commands that write into a ledger another user owns (their files would be root's, which the owner's server cannot open), not those that read",
          .enabled(if: geteuid() == 0, "needs root, to give the ledger to another user"))
    func rootRefusedInAnothersLedger() throws {
        let copy = try LedgerCopy()
        #expect(chown(copy.data, 65534, 65534) == 0)
        let said = try Self.runBinary(["--data", copy.data, "ingest", "/dev/null"])
        #expect(said.status == 2 && said.stderr.contains("uid 65534") && said.stderr.contains("run it as the owner"), "\(said.stderr)")
        for argv in [["rebuild"], ["quarantine", "retry"], ["init", "--bundle-id", "com.example.subledger"]] {
            #expect(copy.tool.run(["--data", copy.data] + argv).exitCode == .usage, "\(argv)")
        }
        for argv in [["verify"], ["head"], ["stats"]] {
            #expect(copy.tool.run(["--data", copy.data] + argv).exitCode == .success, "\(argv)")
        }
    }

    @Test("root is refused a read that must make files in a ledger another user owns (a rebuilt projection database, after an upgrade to a new schema; the lock file of a restored backup's database), whose server could then not start, and nothing is made",
          .enabled(if: geteuid() == 0, "needs root, to give the ledger to another user"))
    func rootRefusedARebuildInAnothersLedger() throws {
        let copy = try LedgerCopy()
        try FileManager.default.removeItem(atPath: copy.data + "/projections")
        #expect(chown(copy.data, 65534, 65534) == 0)
        for argv in [["stats"], ["report", "mrr", "--at", "2026-03-01"], ["customer", "anyone"]] {
            let said = try Self.runBinary(["--data", copy.data] + argv)
            #expect(said.status == 2 && said.stderr.contains("a new projection database, since there is no projection database yet")
                    && said.stderr.contains("run it as the owner"), "\(argv): \(said.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: copy.data + "/projections"), "nothing made")
        #expect(chown(copy.data, 0, 0) == 0)
        #expect(copy.run("stats").exitCode == .success, "its owner rebuilds it")
        // A database as a backup holds it, without LMDB's lock file, which opening it makes.
        let current = copy.data + "/projections/" + (try String(contentsOfFile: copy.data + "/projections/CURRENT", encoding: .utf8))
            .trimmingCharacters(in: .whitespacesAndNewlines)
        try FileManager.default.removeItem(atPath: current + "/lock.mdb")
        #expect(chown(copy.data, 65534, 65534) == 0)
        let said = try Self.runBinary(["--data", copy.data, "stats"])
        #expect(said.status == 2 && said.stderr.contains("the projection database's lock file"), "\(said.stderr)")
        #expect(!FileManager.default.fileExists(atPath: current + "/lock.mdb"), "nothing made")
    }

    @Test("root is refused a backup into a directory another user owns, or a new one inside it (the next backup as that user, the timer's, could not update root's files), not one of its own",
          .enabled(if: geteuid() == 0, "needs root, to give the backup directory to another user"))
    func rootRefusedInAnothersBackup() throws {
        let copy = try LedgerCopy()
        #expect(chown(copy.data, 65534, 65534) == 0)
        let backups = TemporaryDirectory()
        #expect(chown(backups.path, 65534, 65534) == 0)
        for target in [backups.path, backups.file("new/deeper")] {
            let said = try Self.runBinary(["--data", copy.data, "backup", "--to", target])
            #expect(said.status == 2 && said.stderr.contains("\(backups.path) belongs to") && said.stderr.contains("uid 65534")
                    && said.stderr.contains("the timer's"), "\(target): \(said.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: backups.file("new")), "nothing made")
        let own = TemporaryDirectory()
        let backedUp = try Self.runBinary(["--data", copy.data, "backup", "--to", own.file("backup")])
        #expect(backedUp.status == 0, "root's own directory")
        // Not noted in the ledger: a file root made there, 0600, the ledger's server could not read.
        #expect(backedUp.stderr.contains("not noted as the ledger's last") && backedUp.stderr.contains("uid 65534"), "\(backedUp.stderr)")
        #expect(!FileManager.default.fileExists(atPath: copy.data + "/last-backup.json"))
    }

    @Test("events --after a position inside a record is still a usage error (2)")
    func afterInsideARecord() {
        #expect(SimulatedLedger.shared.run("events", "--after", "70", "--json").exitCode == .usage)
    }

    @Test("stats in the state a power loss leaves (the last message's evidence never reached the disk) counts what is there and warns that the next open cuts it")
    func statsWarnsOfEventsWithoutEvidence() throws {
        let copy = try LedgerCopy()
        let evidence = copy.data + "/evidence"
        #expect(try FileManager.default.contentsOfDirectory(atPath: evidence).filter { $0.hasSuffix(".seg") }.count == 1)
        let last = try #require(try LogReader(directory: evidence).summary().lastPosition)
        #expect(truncate(try copy.firstSegment(of: "evidence"), off_t(last.rawValue)) == 0)
        for log in ["log", "evidence"] { try? FileManager.default.removeItem(atPath: copy.data + "/\(log)/CLOSED") }
        let said = try Self.runBinary(["--data", copy.data, "stats"])
        #expect(said.status == 0)
        #expect(said.stderr.contains("warning: the counts include events whose evidence is not in the evidence log"), "\(said.stderr)")
        #expect(try !Self.runBinary(["--data", SimulatedLedger.shared.data, "stats"]).stderr.contains("warning"))
    }

    @Test("after a torn tail is cut and its message ingested again, stats counts each message once, as head does")
    func messagesAfterTornTail() throws {
        let copy = try LedgerCopy()
        let before = try JSONSerialization.jsonObject(with: Data(copy.run("head", "--json").output.utf8)) as! [String: Any]
        let logEnd = try #require(UInt64(before["logEnd"] as! String))
        let segment = try copy.firstSegment(of: "log")
        #expect(try FileManager.default.contentsOfDirectory(atPath: copy.data + "/log").filter { $0.hasSuffix(".seg") }.count == 1)
        // The last event's frame cut short, as a crash mid-append leaves it (so no clean-close
        // marker either); its evidence stays.
        #expect(truncate(segment, off_t(logEnd - 30)) == 0)
        try? FileManager.default.removeItem(atPath: copy.data + "/log/CLOSED")
        let notifications = SimulatedLedger.shared.directory.file("sim/notifications.jsonl")
        #expect(copy.run("ingest", notifications).exitCode == .success)
        let stats = try JSONSerialization.jsonObject(with: Data(copy.run("stats", "--json").output.utf8)) as! [String: Any]
        let head = try JSONSerialization.jsonObject(with: Data(copy.run("head", "--json").output.utf8)) as! [String: Any]
        #expect(stats["messages"] as? Int == before["messages"] as? Int)
        #expect(head["messages"] as? Int == before["messages"] as? Int)
        #expect(stats["events"] as? Int == before["events"] as? Int)
    }
}
