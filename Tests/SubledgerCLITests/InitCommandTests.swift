import Dispatch
import Foundation
import SubledgerCLI
import SubledgerCrypto
import SubledgerLedger
import SubledgerLog
import SubledgerSimulator
import SubledgerTestSupport
import Testing

/// `init` run again changes what it is given and keeps the rest, and checks everything it is
/// given before it writes anything.
@Suite("init")
struct InitCommandTests {
    let tool = CommandLineTool(clock: { SimulatedLedger.now })
    var root: String { SimulatedLedger.shared.directory.file("sim/root.cer") }

    /// Apple's root as `init` writes it, in `directory`, when given none.
    func appleRoot(in directory: TemporaryDirectory) -> String {
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.subledger"]).exitCode == .success)
        return directory.file("roots/root-1.cer")
    }

    func configuration(_ directory: TemporaryDirectory) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("config.json")))) as! [String: Any]
    }

    @Test("init again changes the settings it is given and keeps the others")
    func againKeepsWhatIsNotGiven() throws {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.a", "--app-apple-id", "5", "--small-business", "--root", root]).exitCode == .success)
        #expect(tool.run(["--data", directory.path, "init", "--environment", "Production", "--environment", "Sandbox"]).exitCode == .success)
        var saved = try configuration(directory)
        #expect(saved["bundleId"] as? String == "com.example.a")
        #expect(saved["appAppleId"] as? Int == 5)
        #expect(saved["smallBusiness"] as? Bool == true)
        #expect(saved["environments"] as? [String] == ["Production", "Sandbox"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("roots/root-1.cer"))) == Data(contentsOf: URL(fileURLWithPath: root)))
        #expect(tool.run(["--data", directory.path, "init", "--no-small-business"]).exitCode == .success)
        saved = try configuration(directory)
        #expect(saved["smallBusiness"] as? Bool == false)
        #expect(saved["appAppleId"] as? Int == 5)
    }

    @Test("init takes an environment in any case, as reports and routes do, and keeps Apple's spelling; a name that is none is still refused")
    func environmentInAnyCase() throws {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.a", "--environment", "production", "--environment", "SANDBOX"]).exitCode == .success)
        #expect(try configuration(directory)["environments"] as? [String] == ["Production", "Sandbox"])
        #expect(tool.run(["--data", directory.path, "init", "--environment", "Staging"]).exitCode == .usage)
        #expect(try configuration(directory)["environments"] as? [String] == ["Production", "Sandbox"])
    }

    @Test("a root or catalog file that cannot be read is a usage error (2), as for ingest, and changes nothing", arguments: ["--root", "--catalog"])
    func unreadableFileIsUsage(flag: String) throws {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.a", "--root", root]).exitCode == .success)
        let before = try configuration(directory)
        #expect(tool.run(["--data", directory.path, "init", "--small-business", flag, directory.file("missing")]).exitCode == .usage)
        #expect(try configuration(directory) as NSDictionary == before as NSDictionary)
    }

    @Test("init writes the roots it is given under new names and switches to them with config.json, so no listed root is ever written over (a kill between two left neither set), keeps the file of a root given again, and removes the ones no longer listed")
    func rootsSwitchAtOnce() throws {
        let directory = TemporaryDirectory()
        let other = TemporaryDirectory()
        let apple = appleRoot(in: other)
        let third = TemporaryDirectory()
        _ = try Simulator(configuration: .init(customers: 1, months: 1, seed: 5, start: "2026-01-01")).run(to: third.file("sim"))
        let newRoot = third.file("sim/root.cer")
        func listed() throws -> [(name: String, bytes: Data)] {
            try (configuration(directory)["roots"] as! [String]).map { ($0, try Data(contentsOf: URL(fileURLWithPath: directory.file($0)))) }
        }
        func bytes(_ file: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: file)) }
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.a", "--root", root, "--root", apple]).exitCode == .success)
        let before = try listed()
        #expect(tool.run(["--data", directory.path, "init", "--root", apple, "--root", newRoot]).exitCode == .success)
        let after = try listed()
        #expect(try bytes(newRoot) != bytes(root))
        #expect(after.map(\.bytes) == [try bytes(apple), try bytes(newRoot)])
        #expect(after[0].name == before[1].name, "a root given again keeps its file")
        #expect(!before.map(\.name).contains(after[1].name), "a new root is not written over a listed one")
        #expect(!FileManager.default.fileExists(atPath: directory.file(before[0].name)), "the root no longer listed is removed")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.file("roots")).filter { $0.hasPrefix("root-") }
        #expect(Set(files.map { "roots/" + $0 }) == Set(after.map(\.name)))
    }

    @Test("init writes a catalog under a new name and switches to it with config.json, so the catalog in use is never written over (a kill before the switch left the new catalog with the old other settings, and the old catalog gone); the one replaced stays until the next init, for a command that read config.json before the switch")
    func catalogSwitchesAtOnce() throws {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.a", "--root", root]).exitCode == .success)
        func catalogs() throws -> Set<String> { Set(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("catalog") }) }
        var named: [String] = []
        for period in ["P1M", "P1Y", "P6M"] {
            let file = directory.file("given-\(period).json")
            try #"{"products": [{"productId": "a", "period": "\#(period)"}]}"#.write(toFile: file, atomically: true, encoding: .utf8)
            #expect(tool.run(["--data", directory.path, "init", "--catalog", file]).exitCode == .success)
            let name = try #require(try configuration(directory)["catalog"] as? String)
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file(name))) == Data(contentsOf: URL(fileURLWithPath: file)))
            #expect(!named.contains(name))
            named.append(name)
            #expect(try catalogs() == Set(named.suffix(2)))
        }

        // A ledger of an earlier build, whose catalog is catalog.json: kept as the one replaced.
        var saved = try configuration(directory)
        try FileManager.default.moveItem(atPath: directory.file(named[2]), toPath: directory.file("catalog.json"))
        try FileManager.default.removeItem(atPath: directory.file(named[1]))
        saved["catalog"] = "catalog.json"
        try JSONSerialization.data(withJSONObject: saved).write(to: URL(fileURLWithPath: directory.file("config.json")))
        #expect(tool.run(["--data", directory.path, "init", "--catalog", directory.file("given-P1M.json")]).exitCode == .success)
        let name = try #require(try configuration(directory)["catalog"] as? String)
        #expect(name != "catalog.json")
        #expect(try catalogs() == [name, "catalog.json"])
    }

    @Test("init removes the root and catalog files an init killed before its switch wrote, and keeps the listed ones and a catalog.json of the user's")
    func strayFilesOfAKilledInitAreRemoved() throws {
        let directory = TemporaryDirectory()
        let catalog = directory.file("given.json")
        try #"{"products": [{"productId": "a", "period": "P1M"}]}"#.write(toFile: catalog, atomically: true, encoding: .utf8)
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.a", "--root", root, "--catalog", catalog]).exitCode == .success)
        let listed = try configuration(directory)
        for stray in ["roots/root-9.cer", "catalog-7.json"] {
            try FileManager.default.copyItem(atPath: root, toPath: directory.file(stray))
        }
        try FileManager.default.copyItem(atPath: catalog, toPath: directory.file("catalog.json"))
        #expect(tool.run(["--data", directory.path, "init", "--small-business"]).exitCode == .success)
        #expect(!FileManager.default.fileExists(atPath: directory.file("roots/root-9.cer")))
        #expect(!FileManager.default.fileExists(atPath: directory.file("catalog-7.json")))
        #expect(FileManager.default.fileExists(atPath: directory.file("catalog.json")))
        for name in (listed["roots"] as! [String]) + [listed["catalog"] as! String] {
            #expect(FileManager.default.fileExists(atPath: directory.file(name)), "\(name)")
        }
    }

    @Test("init run again with the settings it has changes nothing: the same config.json, root and catalog files")
    func againWithTheSameSettingsChangesNothing() throws {
        let directory = TemporaryDirectory()
        let catalog = directory.file("given.json")
        try #"{"products": [{"productId": "a", "period": "P1M"}]}"#.write(toFile: catalog, atomically: true, encoding: .utf8)
        let argv = ["--data", directory.path, "init", "--bundle-id", "com.example.a", "--root", root, "--catalog", catalog, "--small-business"]
        func snapshot() throws -> [String: Data] {
            var files: [String: Data] = [:]
            for path in try FileManager.default.subpathsOfDirectory(atPath: directory.path) where path != "given.json" {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: directory.file(path), isDirectory: &isDirectory), !isDirectory.boolValue {
                    files[path] = try Data(contentsOf: URL(fileURLWithPath: directory.file(path)))
                }
            }
            return files
        }
        #expect(tool.run(argv).exitCode == .success)
        let first = try snapshot()
        #expect(tool.run(argv).exitCode == .success)
        #expect(try snapshot() == first)
    }

    @Test("beside a process writing the ledger (a server), init says the settings apply once it restarts only when it changed one")
    func restartNoticeOnlyForAChange() throws {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.a", "--root", root]).exitCode == .success)
        let writer = try LogWriter(directory: directory.file("log"))
        defer { writer.close() }
        let changed = try DamageTests.runBinary(["--data", directory.path, "init", "--small-business"])
        #expect(changed.status == 0 && changed.stderr.contains("once it restarts"), "\(changed.stderr)")
        let unchanged = try DamageTests.runBinary(["--data", directory.path, "init", "--small-business"])
        #expect(unchanged.status == 0 && !unchanged.stderr.contains("once it restarts"), "\(unchanged.stderr)")
    }

    @Test("an init waits for another init of the same directory and keeps its change: each read the settings before the other wrote, and one change was lost")
    func concurrentInitsTakeTurns() throws {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.a", "--root", root]).exitCode == .success)
        let holding = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let path = directory.path
        DispatchQueue.global().async {
            // The first init, between reading the settings and writing its own change.
            _ = try? Ledger.changingConfiguration(of: path, waiting: {}, warning: { _ in }) {
                holding.signal()
                usleep(300_000)
                _ = try Ledger.initialize(directory: path, bundleId: "com.example.a", appAppleId: nil, environments: ["Production"], rootFiles: [],
                                          smallBusiness: true, catalogFile: nil)
            }
            finished.signal()
        }
        holding.wait()
        #expect(tool.run(["--data", directory.path, "init", "--environment", "Production", "--environment", "Sandbox"]).exitCode == .success)
        finished.wait()
        let saved = try configuration(directory)
        #expect(saved["smallBusiness"] as? Bool == true)
        #expect(saved["environments"] as? [String] == ["Production", "Sandbox"])
    }

    @Test("init refuses an API key id that is not letters and digits and an issuer id that is not a UUID, as a usage error that changes nothing, the other settings given included", arguments: [
        ("", "57246542-96fe-1a63-e053-0824d011072a"), ("KEY ID", "57246542-96fe-1a63-e053-0824d011072a"), ("ABC123", "not-a-uuid"),
    ])
    func apiIdentifiersChecked(keyId: String, issuerId: String) throws {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.a", "--root", root]).exitCode == .success)
        let key = directory.file("key.p8")
        try Data(try ECPrivateKey(generating: .p256).pkcs8PEM()).write(to: URL(fileURLWithPath: key))
        // The same key with good ids is taken: only the ids are wrong.
        #expect(tool.run(["--data", directory.file("other"), "init", "--bundle-id", "com.example.a", "--root", root, "--api-key", key,
                          "--api-key-id", "ABC123", "--api-issuer-id", "57246542-96fe-1a63-e053-0824d011072a"]).exitCode == .success)
        let before = try configuration(directory)
        #expect(tool.run(["--data", directory.path, "init", "--small-business", "--api-key", key, "--api-key-id", keyId, "--api-issuer-id", issuerId]).exitCode == .usage)
        #expect(!FileManager.default.fileExists(atPath: directory.file("appstore/api.json")))
        #expect(try configuration(directory) as NSDictionary == before as NSDictionary, "nothing else changed either")
    }

    @Test("a listed root file gone missing does not stop init keeping the others the events need")
    func missingRootFileKeepsTheOthers() throws {
        let copy = try LedgerCopy()
        let other = TemporaryDirectory()
        let apple = appleRoot(in: other)
        #expect(copy.run("init", "--root", apple, "--root", root).exitCode == .success)
        let listed = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: copy.data + "/config.json"))) as? [String: Any])["roots"] as? [String]
        try FileManager.default.removeItem(atPath: copy.data + "/" + (try #require(listed?.first)))
        #expect(copy.run("init", "--root", apple).exitCode == .success)
        let kept = try FileManager.default.contentsOfDirectory(atPath: copy.data + "/roots").filter { $0.hasPrefix("untrusted-") }
        #expect(try kept.map { try Data(contentsOf: URL(fileURLWithPath: copy.data + "/roots/" + $0)) } == [try Data(contentsOf: URL(fileURLWithPath: root))])
    }

    @Test("a root given to init on a ledger holding events replaces the configured one: init keeps the root it stops trusting, and given both again every event verifies")
    func replacedRootKept() throws {
        let copy = try LedgerCopy()
        let other = TemporaryDirectory()
        let apple = appleRoot(in: other)
        func kept() throws -> [String] {
            try FileManager.default.contentsOfDirectory(atPath: copy.data + "/roots").filter { $0.hasPrefix("untrusted-") }.map { copy.data + "/roots/" + $0 }
        }
        // An init that fails its checks (a second root that is no certificate) keeps nothing either.
        try "not a certificate\n".write(toFile: other.file("bad.cer"), atomically: true, encoding: .utf8)
        #expect(copy.run("init", "--root", apple, "--root", other.file("bad.cer")).exitCode == .usage)
        #expect(try kept().isEmpty)
        #expect(copy.run("init", "--root", apple).exitCode == .success)
        let simulationRoot = try #require(try kept().first)
        #expect(try kept().count == 1)
        #expect(try Data(contentsOf: URL(fileURLWithPath: simulationRoot)) == Data(contentsOf: URL(fileURLWithPath: root)))
        #expect(copy.run("events", "--reverify", "--limit", "3").exitCode == .corruption)
        #expect(copy.run("init", "--root", simulationRoot, "--root", apple).exitCode == .success)
        #expect(copy.run("events", "--reverify", "--limit", "3").exitCode == .success)
        #expect(try kept() == [simulationRoot])
    }

    @Test("init refuses another bundle id or app Apple id once the ledger holds events, and changes them while it holds none")
    func appFixedOnceEventsAreStored() throws {
        let directory = TemporaryDirectory()
        let simulation = SimulatedLedger.shared.directory.file("sim")
        let data = ["--data", directory.path]
        #expect(tool.run(data + ["init", "--bundle-id", "com.example.typo", "--app-apple-id", "7", "--root", root]).exitCode == .success)
        #expect(tool.run(data + ["init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890"]).exitCode == .success)
        #expect(tool.run(data + ["ingest", simulation + "/notifications.jsonl"]).exitCode == .success)
        let before = try configuration(directory)
        for argv in [["--bundle-id", "com.example.other"], ["--app-apple-id", "99"]] {
            #expect(tool.run(data + ["init"] + argv).exitCode == .usage)
            #expect(try configuration(directory) as NSDictionary == before as NSDictionary)
        }
        // The same app, or other settings, still change.
        #expect(tool.run(data + ["init", "--bundle-id", "com.example.subledger", "--app-apple-id", "1234567890", "--small-business"]).exitCode == .success)
        #expect(try configuration(directory)["smallBusiness"] as? Bool == true)
        // Without its configuration, the app is read from the evidence.
        try FileManager.default.removeItem(atPath: directory.file("config.json"))
        #expect(tool.run(data + ["init", "--bundle-id", "com.example.other"]).exitCode == .usage)
        #expect(!FileManager.default.fileExists(atPath: directory.file("config.json")))
        #expect(tool.run(data + ["init", "--bundle-id", "com.example.subledger", "--root", root]).exitCode == .success)
    }

    @Test("an app Apple id given after events are in is checked against the id their messages carry: a contradicting one is refused, the right one is taken, also over a mistyped one")
    func appAppleIdCheckedAgainstStoredMessages() throws {
        let directory = TemporaryDirectory()
        let data = ["--data", directory.path]
        #expect(tool.run(data + ["init", "--bundle-id", "com.example.subledger", "--root", root]).exitCode == .success)
        #expect(tool.run(data + ["ingest", SimulatedLedger.shared.directory.file("sim") + "/notifications.jsonl"]).exitCode == .success)
        #expect(tool.run(data + ["init", "--app-apple-id", "999"]).exitCode == .usage)
        #expect(try configuration(directory)["appAppleId"] == nil)
        #expect(tool.run(data + ["init", "--app-apple-id", "1234567890"]).exitCode == .success)
        // A mistyped id stored before (set while only Sandbox messages, which carry none, came in).
        var saved = try configuration(directory)
        saved["appAppleId"] = 111
        try JSONSerialization.data(withJSONObject: saved).write(to: URL(fileURLWithPath: directory.file("config.json")))
        #expect(tool.run(data + ["init", "--app-apple-id", "1234567890"]).exitCode == .success)
        #expect(try configuration(directory)["appAppleId"] as? Int == 1_234_567_890)
    }

    @Test("a catalog or root that is not valid is refused and leaves the directory as it was", arguments: [
        ("catalog", "hi\n"), ("catalog", #"{"products": [{"productId": "a", "entitlements": "pro"}]}"#),
        ("catalog", #"{"products": [{"productId": "a", "period": "P1M"}, {"productId": "a", "period": "P1Y"}]}"#),
        ("catalog", #"{"products": [{"productId": "a", "period": "P5M"}]}"#), ("catalog", #"{"products": [{"productId": "", "period": "P1M"}]}"#),
        ("root", "not a certificate"),
    ])
    func invalidInputsWriteNothing(flag: String, content: String) throws {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.a", "--root", root]).exitCode == .success)
        let before = try configuration(directory)
        let file = directory.file("given")
        try content.write(toFile: file, atomically: true, encoding: .utf8)
        let arguments = flag == "root" ? ["--root", root, "--root", file] : ["--catalog", file]
        #expect(tool.run(["--data", directory.path, "init", "--small-business"] + arguments).exitCode == .usage)
        #expect(try configuration(directory) as NSDictionary == before as NSDictionary)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("catalog") }.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: directory.file("roots/root-2.cer")))
        // The ledger still opens.
        #expect(tool.run(["--data", directory.path, "stats"]).exitCode == .success)
    }

    @Test("a catalog stored by an earlier build with a period MRR does not know still opens: only init refuses one")
    func storedCatalogWithUnknownPeriodOpens() throws {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.path, "init", "--bundle-id", "com.example.a", "--root", root]).exitCode == .success)
        let file = directory.file("given.json")
        try #"{"products": [{"productId": "a", "period": "P1M"}]}"#.write(toFile: file, atomically: true, encoding: .utf8)
        #expect(tool.run(["--data", directory.path, "init", "--catalog", file]).exitCode == .success)
        // As an earlier build stored it.
        let stored = try #require(try configuration(directory)["catalog"] as? String)
        try #"{"products": [{"productId": "a", "period": "P5M"}]}"#.write(toFile: directory.file(stored), atomically: true, encoding: .utf8)
        #expect(tool.run(["--data", directory.path, "report", "mrr", "--at", "2026-01-01"]).exitCode == .success)
    }

    @Test("init refuses an empty bundle id, an app Apple id that is not a positive number, and both Small Business switches", arguments: [
        ["--bundle-id", ""], ["--bundle-id", " "], ["--bundle-id", "com.example.a ", "--app-apple-id", "5"], ["--bundle-id", "com.example.a", "--app-apple-id", "-5"], ["--bundle-id", "com.example.a", "--app-apple-id", "0"],
        ["--bundle-id", "com.example.a", "--small-business", "--no-small-business"], [],
    ])
    func refusedValues(argv: [String]) {
        let directory = TemporaryDirectory()
        #expect(tool.run(["--data", directory.path, "init"] + argv).exitCode == .usage)
        #expect(!FileManager.default.fileExists(atPath: directory.file("config.json")))
    }
}

/// The data directory holds every signed payload and customer id: only its owner reads it,
/// whatever the umask (the systemd unit sets 0077; a shell's 022 does not).
@Suite("Data directory permissions")
struct DataDirectoryPermissionsTests {
    @Test("after init, ingest (one line rejected, so the quarantine exists) and a backup, nothing in either directory is readable by group or others")
    func ownerOnly() throws {
        let directory = TemporaryDirectory()
        let tool = CommandLineTool(clock: { SimulatedLedger.now })
        let data = ["--data", directory.file("data")]
        let simulation = SimulatedLedger.shared.directory.file("sim")
        // Process-wide, beside tests running in parallel: 022 is the usual umask they run under
        // anyway, and what a shell gives; set so the test cannot pass on a stricter one.
        let previous = umask(0o022)
        defer { umask(previous) }
        #expect(tool.run(data + ["init", "--bundle-id", "com.example.subledger", "--root", simulation + "/root.cer"]).exitCode == .success)
        let input = directory.file("input.jsonl")
        let lines = try String(contentsOfFile: simulation + "/notifications.jsonl", encoding: .utf8).split(separator: "\n").prefix(50)
        try (lines.joined(separator: "\n") + "\nnot json\n").write(toFile: input, atomically: true, encoding: .utf8)
        #expect(tool.run(data + ["ingest", input]).exitCode == .failure)
        #expect(tool.run(data + ["backup", "--to", directory.file("backup")]).exitCode == .success)
        for root in [directory.file("data"), directory.file("backup")] {
            var open: [String] = []
            var info = stat()
            for path in [root] + (FileManager.default.subpaths(atPath: root) ?? []).map({ root + "/" + $0 }) where lstat(path, &info) == 0 {
                if info.st_mode & 0o077 != 0 { open.append("\(path) \(String(info.st_mode & 0o777, radix: 8))") }
            }
            #expect(open.isEmpty, "\(open)")
            #expect(FileManager.default.fileExists(atPath: root + "/quarantine"))
        }
    }
}
