import Foundation
import SubledgerLedger
import SubledgerLMDB
import SubledgerTestSupport
import Testing

@Suite("Databases a rebuild replaced")
struct ReplacedDatabaseTests {
    @Test("a database a rebuild kept because a process had it open is removed when the ledger is next opened for writing, once none has it open")
    func removedAtTheNextOpenForWriting() throws {
        let directory = TemporaryDirectory()
        let data = directory.file("data")
        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890,
                                  environments: ["Production"], rootFiles: [], smallBusiness: false, catalogFile: nil)
        try Ledger(directory: data).close()
        let projections = data + "/projections"
        func entries() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: projections).sorted() }
        let current = try String(contentsOfFile: projections + "/CURRENT", encoding: .utf8).trimmingCharacters(in: .newlines)
        // As a switch leaves them: one still open (here, in this process), one closed since.
        let open = try LMDBEnvironment(path: projections + "/snapshot-0", mapSize: 1 << 20)
        try withExtendedLifetime(LMDBEnvironment(path: projections + "/snapshot-00", mapSize: 1 << 20)) {}
        #expect(try entries() == ["CURRENT", current, "snapshot-0", "snapshot-00"].sorted())

        try Ledger(directory: data).close()
        #expect(try entries() == ["CURRENT", current, "snapshot-0"].sorted())
        withExtendedLifetime(open) {}
    }
}
