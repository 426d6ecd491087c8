import Foundation
import SubledgerCLI
import SubledgerTestSupport
import Testing

/// `head` and `verify --head` as a user runs them: the contract's JSON and exit codes.
@Suite("head and verify --head commands")
struct HeadCommandTests {
    let ledger = SimulatedLedger.shared

    @Test("head --json is the contract's document over every event and message, and verify --head accepts it")
    func headDocument() throws {
        let head = try ledger.json("head")
        let stats = try ledger.json("stats")
        #expect(Array(head.keys).sorted() == ["events", "evidenceEnd", "hash", "logEnd", "messages", "position"])
        let hash = try #require(head["hash"] as? String)
        #expect(hash.count == 64 && hash.allSatisfy(\.isHexDigit))
        #expect(head["position"] as? String == stats["lastPosition"] as? String)
        #expect(head["events"] as? Int == stats["events"] as? Int)
        #expect(head["messages"] as? Int == stats["messages"] as? Int)

        let position = try #require(head["position"] as? String)
        let (code, output) = ledger.run("verify", "--head", hash, "--at", position, "--json")
        #expect(code == .success)
        let verification = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        #expect(verification["ok"] as? Bool == true)
        #expect(verification["actual"] as? String == hash)
    }

    @Test("head's table names the commands to run with what it prints, each carrying the --data the command line gave, so they can be run as they stand")
    func tableNotesCarryTheDataDirectory() throws {
        let head = try ledger.json("head")
        let (code, output) = ledger.run("head")
        #expect(code == .success)
        let (hash, position, end) = (try #require(head["hash"] as? String), try #require(head["position"] as? String), try #require(head["logEnd"] as? String))
        #expect(output.contains("`subledger --data \(ledger.data) verify --head \(hash) --at \(position)`"), "\(output)")
        #expect(output.contains("`subledger --data \(ledger.data) report ... --at-position \(end)`"), "\(output)")
    }

    @Test("a digest that is not the ledger's exits 3 and says the bytes are not the published ones, naming the ledger's directory, not one of its logs")
    func wrongDigest() throws {
        let head = try ledger.json("head")
        let other = String((head["hash"] as! String).reversed())
        let (code, output) = ledger.run("verify", "--head", other, "--at", head["position"] as! String, "--json")
        #expect(code == .corruption)
        let verification = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        let problems = try #require(verification["problems"] as? [[String: Any]])
        #expect(problems.map { $0["kind"] as? String } == ["digest_mismatch"])
        #expect(problems.map { $0["log"] as? String } == ["ledger"], "the digest of both logs cannot say which changed")
    }

    @Test("an earlier position has its own digest, which verify --head accepts too")
    func earlierPosition() throws {
        let latest = try ledger.json("head")
        let first = try ledger.json("history", ledger.customerIds[0])
        let position = try #require((first["events"] as? [[String: Any]])?.first?["position"] as? String)
        let earlier = try ledger.json("head", "--at", position)
        #expect(earlier["position"] as? String == position)
        #expect(earlier["hash"] as? String != latest["hash"] as? String)
        #expect((earlier["events"] as! Int) < (latest["events"] as! Int))
        #expect(ledger.run("verify", "--head", earlier["hash"] as! String, "--at", position).exitCode == .success)
    }

    @Test("verify --head inside the log where no event starts is a usage error (2), not damage, as is head's logEnd given with its hash; at or past its end otherwise it is the audit's: the head's event may be what was cut")
    func positionNotAnEvent() throws {
        let head = try ledger.json("head")
        let hash = try #require(head["hash"] as? String)
        let (position, end) = (try #require(UInt64(head["position"] as! String)), try #require(UInt64(head["logEnd"] as! String)))
        for at in [position + 1, end - 1, 3, end] {
            #expect(ledger.run("verify", "--head", hash, "--at", String(at)).exitCode == .usage, "\(at)")
        }
        let other = String(repeating: "ab", count: 32)
        for (digest, at) in [(other, end), (hash, end + 1000)] {
            #expect(ledger.run("verify", "--head", digest, "--at", String(at)).exitCode == .corruption, "\(at)")
        }
    }

    @Test("head and verify --head say what is wrong with their arguments", arguments: [
        (["head", "--at", "x"], ExitCode.usage), (["head", "--at", "3"], .usage),
        (["verify", "--head", "abc", "--at", "100"], .usage), (["verify", "--head", String(repeating: "0", count: 64)], .usage),
        (["verify", "--at", "100"], .usage),
    ])
    func arguments(argv: [String], code: ExitCode) {
        #expect(ledger.run(argv).exitCode == code)
    }

    @Test("head, export and verify have their own help pages naming their options")
    func help() {
        let tool = CommandLineTool()
        #expect(tool.run(["head", "--help"]).output.contains("--at POSITION"))
        #expect(tool.run(["verify", "--help"]).output.contains("--head HASH"))
        let export = tool.run(["help", "export"]).output
        #expect(["--from DAY", "--to DAY", "--out DIR", "jsonl"].allSatisfy(export.contains))
    }
}
