import Foundation
@testable import SubledgerCLI
import SubledgerSimulator
import SubledgerTestSupport
import Testing

/// `subledger export`: warehouse files whose schema is what is written, and whose transactions,
/// queried with the SQL of docs/audit.md, give exactly `report revenue`.
@Suite("Export for a warehouse", .serialized)
struct ExportTests {
    /// A simulated half year with many refunds (prorated ones and reversals too), so the revenue
    /// SQL has every case to get right, exported once as CSV and once as JSON lines.
    final class Fixture: Sendable {
        static let from = "2026-01-01"
        static let to = "2026-06-30"
        let directory = TemporaryDirectory(sharedByProcess: true)
        let tool = CommandLineTool(clock: { SimulatedLedger.now })
        var data: String { directory.file("data") }
        var csv: String { directory.file("csv") }
        var jsonl: String { directory.file("jsonl") }

        init() throws {
            var rates = Rates()
            rates.refundRequest = 0.3
            rates.refundReversed = 0.4
            let configuration = Simulator.Configuration(customers: 120, months: 6, seed: 23, start: Self.from, duplicates: 0.05, reorder: 0.1, rates: rates)
            _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
            for argv in [
                ["init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890", "--root", directory.file("sim/root.cer")],
                ["ingest", directory.file("sim/notifications.jsonl")],
                ["export", "--from", Self.from, "--to", Self.to, "--out", directory.file("csv")],
                ["export", "--from", Self.from, "--to", Self.to, "--out", directory.file("jsonl"), "--format", "jsonl"],
            ] {
                let (code, _) = tool.run(["--data", directory.file("data")] + argv)
                guard code == .success else { throw SimulatedLedger.Failure("\(argv.joined(separator: " ")) exited \(code)") }
            }
        }

        func revenue() throws -> [[String: Any]] {
            let (code, output) = tool.run(["--data", data, "report", "revenue", "--from", Self.from, "--to", Self.to, "--by", "month", "--json"])
            guard code == .success else { throw SimulatedLedger.Failure("report revenue exited \(code)") }
            return (try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any])["rows"] as! [[String: Any]]
        }
    }

    static let fixture = Result { try Fixture() }
    static let files = ["transactions", "events", "subscriptions"]

    /// `SCHEMA.md`'s column names under `## NAME.EXT`, in order.
    static func schemaColumns(_ directory: String, _ file: String) throws -> [String] {
        let schema = try String(contentsOfFile: directory + "/SCHEMA.md", encoding: .utf8)
        let lines = schema.components(separatedBy: "\n")
        guard let heading = lines.firstIndex(of: "## " + file) else { return [] }
        return lines[(heading + 1)...].prefix { !$0.hasPrefix("## ") }.compactMap { line in
            guard line.hasPrefix("| `") else { return nil }
            return line.dropFirst(3).prefix { $0 != "`" }.description
        }
    }

    @Test("SCHEMA.md lists exactly the columns of every CSV file, which is RFC 4180 with one field per column in every record", arguments: files)
    func csvSchema(file: String) throws {
        let fixture = try Self.fixture.get()
        let text = try String(contentsOfFile: fixture.csv + "/\(file).csv", encoding: .utf8)
        let records = try #require(CSV.parse(text))
        #expect(records.count > 1, "\(file).csv has no rows")
        #expect(try Self.schemaColumns(fixture.csv, file + ".csv") == records[0])
        #expect(records.allSatisfy { $0.count == records[0].count })
    }

    @Test("SCHEMA.md lists exactly the members of every JSON line", arguments: files)
    func jsonlSchema(file: String) throws {
        let fixture = try Self.fixture.get()
        let lines = try String(contentsOfFile: fixture.jsonl + "/\(file).jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.count > 0)
        let columns = try Self.schemaColumns(fixture.jsonl, file + ".jsonl")
        for line in lines {
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
            #expect(Set(object.keys) == Set(columns))
        }
        #expect(columns.count == (try Self.schemaColumns(fixture.csv, file + ".csv")).count)
    }

    @Test("transactions and JSON lines hold the same rows; subscriptions are one per subscription")
    func sameRows() throws {
        let fixture = try Self.fixture.get()
        for file in Self.files {
            let csvRows = try #require(CSV.parse(try String(contentsOfFile: fixture.csv + "/\(file).csv", encoding: .utf8))).count - 1
            let jsonRows = try String(contentsOfFile: fixture.jsonl + "/\(file).jsonl", encoding: .utf8).split(separator: "\n").count
            #expect(csvRows == jsonRows, "\(file)")
        }
        let records = try #require(CSV.parse(try String(contentsOfFile: fixture.csv + "/subscriptions.csv", encoding: .utf8)))
        let ids = records.dropFirst().map { $0[1] + "/" + $0[2] }
        #expect(Set(ids).count == ids.count)
    }

    @Test("an export of all history holds every event the log holds, its last included: the files are as of the last event folded, not before it")
    func everyEventUpToTheLast() throws {
        let fixture = try Self.fixture.get()
        let out = fixture.directory.file("all-history")
        #expect(fixture.tool.run(["--data", fixture.data, "export", "--from", "2025-01-01", "--to", "2027-12-31", "--out", out, "--format", "jsonl"]).exitCode == .success)
        let exported = try String(contentsOfFile: out + "/events.jsonl", encoding: .utf8).split(separator: "\n")
        let listed = fixture.tool.run(["--data", fixture.data, "events", "--format", "jsonl"]).output.split(separator: "\n")
        #expect(!listed.isEmpty && exported.count == listed.count)
    }

    @Test("--json prints the summary as JSON whatever --format the files take (a wrapper that always adds --json broke on JSON lines exports), and without it the summary is a table", arguments: ["csv", "jsonl"])
    func jsonSummaryWithEitherFileFormat(format: String) throws {
        let fixture = try Self.fixture.get()
        let out = fixture.directory.file("summary-\(format)")
        let (code, output) = fixture.tool.run(["--data", fixture.data, "export", "--from", Fixture.from, "--to", Fixture.to, "--out", out, "--format", format, "--json"])
        #expect(code == .success)
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        #expect(summary["format"] as? String == format)
        #expect(FileManager.default.fileExists(atPath: out + "/events.\(format)"))
        // Without --json, a table whatever the files: --format names the files, not the summary.
        let (_, table) = fixture.tool.run(["--data", fixture.data, "export", "--from", Fixture.from, "--to", Fixture.to, "--out", out, "--format", format])
        #expect(table.hasPrefix("exported ") && table.contains("events.\(format)"), "\(table)")
    }

    static let python = Conformance.repositoryRoot.appendingPathComponent(".build/python/bin/python")
    static let duckdbAvailable: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python.path) else { return false }
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", "import duckdb"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    @Test("transactions.csv in DuckDB and in SQLite, with the SQL of docs/audit.md, gives exactly report revenue --by month",
          .enabled(if: duckdbAvailable, "the project's venv has no duckdb: run Tools/setup-python (creates .build/python)"))
    func revenueInSQL() throws {
        let fixture = try Self.fixture.get()
        let expected = try fixture.revenue().map { row in
            ["period": row["period"] as! String, "currency": row["currency"] as! String,
             "grossSales": row["grossSales"] as! Int, "refunds": row["refunds"] as! Int, "net": row["net"] as! Int] as NSDictionary
        }
        #expect(expected.contains { ($0["refunds"] as! Int) > 0 }, "the workload should have refunds to count")
        let process = Process()
        process.executableURL = Self.python
        process.arguments = [
            Conformance.repositoryRoot.appendingPathComponent("Tools/python/export_revenue.py").path,
            fixture.csv + "/transactions.csv", Conformance.repositoryRoot.appendingPathComponent("docs/audit.md").path,
            Fixture.from, "2026-07-01",
        ]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let results = try JSONSerialization.jsonObject(with: data) as! [String: [[String: Any]]]
        for engine in ["duckdb", "sqlite"] {
            let rows = try #require(results[engine]).map { NSDictionary(dictionary: $0) }
            #expect(rows == expected, "\(engine) disagrees with report revenue")
        }
    }

    @Test("a ledger with no event yet exports empty files and SCHEMA.md, as every read answers on an empty ledger")
    func emptyLedger() throws {
        let directory = TemporaryDirectory()
        let tool = CommandLineTool(clock: { SimulatedLedger.now })
        #expect(tool.run(["--data", directory.file("data"), "init", "--bundle-id", "com.example.subledger"]).exitCode == .success)
        let (code, output) = tool.run(["--data", directory.file("data"), "export", "--from", "2026-01-01", "--to", "2026-01-31", "--out", directory.file("out"), "--json"])
        #expect(code == .success, "\(output)")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.file("out")).sorted()
        #expect(names == ["SCHEMA.md", "events.csv", "subscriptions.csv", "transactions.csv"])
        for name in names where name.hasSuffix(".csv") {
            #expect(try String(contentsOfFile: directory.file("out/" + name), encoding: .utf8).split(separator: "\n").count == 1, "\(name): a header only")
        }
    }

    /// Exports an empty ledger into an `--out` holding a link named `name` to a file `victim`;
    /// returns the export's exit code, the directory and whether the victim is untouched.
    func exportBeside(link name: String, hard: Bool = false) throws -> (code: ExitCode, directory: TemporaryDirectory, victimUntouched: Bool) {
        let directory = TemporaryDirectory()
        let tool = CommandLineTool(clock: { SimulatedLedger.now })
        #expect(tool.run(["--data", directory.file("data"), "init", "--bundle-id", "com.example.subledger"]).exitCode == .success)
        try FileManager.default.createDirectory(atPath: directory.file("out"), withIntermediateDirectories: false)
        try "precious\n".write(toFile: directory.file("victim"), atomically: true, encoding: .utf8)
        if hard {
            try FileManager.default.linkItem(atPath: directory.file("victim"), toPath: directory.file("out/" + name))
        } else {
            try FileManager.default.createSymbolicLink(atPath: directory.file("out/" + name), withDestinationPath: directory.file("victim"))
        }
        let (code, _) = tool.run(["--data", directory.file("data"), "export", "--from", "2026-01-01", "--to", "2026-01-31", "--out", directory.file("out")])
        return (code, directory, try String(contentsOfFile: directory.file("victim"), encoding: .utf8) == "precious\n")
    }

    @Test("a symbolic link planted in --out named like an export file is replaced, not written through: its target is untouched", arguments: ["events.csv", "SCHEMA.md"])
    func symbolicLinksReplaced(name: String) throws {
        let (code, directory, untouched) = try exportBeside(link: name)
        #expect(code == .success)
        #expect(untouched)
        #expect(try FileManager.default.attributesOfItem(atPath: directory.file("out/" + name))[.type] as? FileAttributeType == .typeRegular)
    }

    @Test("a link planted where an export file is written before it is whole (symbolic or hard, another user's in a shared --out) is removed, not written through", arguments: [".events.csv.partial", ".SCHEMA.md.partial"])
    func partialLinksNotFollowed(name: String) throws {
        let (code, directory, untouched) = try exportBeside(link: name)
        #expect(code == .success)
        #expect(untouched)
        let hard = try exportBeside(link: name, hard: true)
        #expect(hard.code == .success)
        #expect(hard.victimUntouched)
        #expect(!FileManager.default.fileExists(atPath: directory.file("out/" + name)))
    }

    @Test("an export that meets damage leaves the previous export in --out as it was, and no partial file: a warehouse job loads the last whole export")
    func damageKeepsThePreviousExport() throws {
        let copy = try LedgerCopy()
        let out = copy.directory.file("out")
        #expect(copy.run("export", "--from", "2026-01-01", "--to", "2026-12-31", "--out", out).exitCode == .success)
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        let before = try names.map { try Data(contentsOf: URL(fileURLWithPath: out + "/" + $0)) }
        let segment = try copy.firstSegment(of: "log")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: segment)[.size] as? UInt64)
        try flipByte(in: segment, at: size * 2 / 3)
        #expect(copy.run("export", "--from", "2026-01-01", "--to", "2026-12-31", "--out", out).exitCode == .corruption)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == names)
        #expect(try names.map { try Data(contentsOf: URL(fileURLWithPath: out + "/" + $0)) } == before)
    }

    @Test("a file that cannot be put in place after others were fails naming those already replaced, and leaves no partial file")
    func publishingFailsMidway() throws {
        let copy = try LedgerCopy()
        let out = copy.directory.file("out")
        // A directory where events.csv goes: the rename over it fails after two files were put in place.
        try FileManager.default.createDirectory(atPath: out + "/events.csv/inside", withIntermediateDirectories: true)
        #expect(copy.run("export", "--from", "2026-01-01", "--to", "2026-01-31", "--out", out).exitCode == .failure)
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == ["events.csv", "subscriptions.csv", "transactions.csv"])
        let error = ExportError(path: out + "/events.csv", call: "rename", errno: EISDIR, replaced: ["transactions.csv", "subscriptions.csv"])
        #expect(error.description.contains("transactions.csv, subscriptions.csv in --out are already this export's"))
    }

    @Test("an export put in place over a previous one keeps the modes the user gave its files (narrowed to the owner, as files holding customer ids should be)")
    func modesKept() throws {
        let copy = try LedgerCopy()
        let out = copy.directory.file("out")
        #expect(copy.run("export", "--from", "2026-01-01", "--to", "2026-01-31", "--out", out).exitCode == .success)
        let names = try FileManager.default.contentsOfDirectory(atPath: out)
        for name in names { #expect(chmod(out + "/" + name, 0o600) == 0) }
        #expect(copy.run("export", "--from", "2026-01-01", "--to", "2026-02-28", "--out", out).exitCode == .success)
        for name in names {
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: out + "/" + name)[.posixPermissions] as? Int)
            #expect(mode == 0o600, "\(name)")
        }
    }

    @Test("an --out that is a symbolic link to a directory is not written through: the export fails, the directory's files untouched")
    func symbolicLinkOutRefused() throws {
        let directory = TemporaryDirectory()
        let tool = CommandLineTool(clock: { SimulatedLedger.now })
        #expect(tool.run(["--data", directory.file("data"), "init", "--bundle-id", "com.example.subledger"]).exitCode == .success)
        try FileManager.default.createDirectory(atPath: directory.file("notes"), withIntermediateDirectories: false)
        try "my notes\n".write(toFile: directory.file("notes/events.csv"), atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: directory.file("out"), withDestinationPath: directory.file("notes"))
        let (code, _) = tool.run(["--data", directory.file("data"), "export", "--from", "2026-01-01", "--to", "2026-01-31", "--out", directory.file("out")])
        #expect(code == .failure)
        #expect(try String(contentsOfFile: directory.file("notes/events.csv"), encoding: .utf8) == "my notes\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("notes")) == ["events.csv"])
    }

    @Test("export needs both days, in order, and a directory")
    func usage() throws {
        let fixture = try Self.fixture.get()
        for argv in [["export", "--to", "2026-01-31", "--out", "x"], ["export", "--from", "2026-02-01", "--to", "2026-01-31", "--out", "x"],
                     ["export", "--from", "2026-01-01", "--to", "2026-01-31"], ["export", "--from", "2026-01-01", "--to", "2026-13-01", "--out", "x"]] {
            #expect(fixture.tool.run(["--data", fixture.data] + argv).exitCode == .usage, "\(argv)")
        }
    }
}
