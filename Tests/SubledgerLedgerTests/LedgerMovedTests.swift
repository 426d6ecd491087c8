import Foundation
import SubledgerLog
import SubledgerSimulator
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

/// A data directory replaced under an open ledger, as a restore done with the server running
/// does: the ledger must write nothing more, there or into what is at its path now.
@Suite("A ledger whose data directory is replaced while open")
struct LedgerMovedTests {
    @Test("it says it is no longer in place, refuses to append, and closes without folding or sealing the copy now at its path, which opens with what it held")
    func replacedWhileOpen() throws {
        let directory = TemporaryDirectory()
        let data = directory.file("data")
        let configuration = Simulator.Configuration(customers: 30, months: 2, seed: 44, start: "2026-01-01", duplicates: 0, reorder: 0)
        _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
        let lines = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                  rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        func batch(_ range: Range<Int>) -> [IngestLine] { range.map { IngestLine(bytes: lines[$0], line: $0 + 1, source: "sim") } }
        do {
            let ledger = try Ledger(directory: data)
            _ = try ledger.ingest(batch(0..<10), recordedAt: 1_000)
            ledger.close()
        }
        try FileManager.default.copyItem(atPath: data, toPath: directory.file("copy"))
        // A copy whose dedup index file is longer than the open one uses (LMDB leaves room): a
        // seal written by path would then describe the open index's bytes over the copy's.
        let copiedIndex = directory.file("copy/dedup/data.mdb")
        let size = try #require(try FileManager.default.attributesOfItem(atPath: copiedIndex)[.size] as? Int)
        #expect(truncate(copiedIndex, off_t(size + (4 << 20))) == 0)
        let ledger = try Ledger(directory: data)
        _ = try ledger.ingest(batch(10..<15), recordedAt: 2_000)
        #expect(ledger.isInPlace)
        try FileManager.default.moveItem(atPath: data, toPath: directory.file("aside"))
        try FileManager.default.moveItem(atPath: directory.file("copy"), toPath: data)
        #expect(!ledger.isInPlace)
        func files() throws -> [String: Data] {
            var files: [String: Data] = [:]
            for path in try FileManager.default.subpathsOfDirectory(atPath: data) {
                var isDirectory: ObjCBool = false
                if FileManager.default.fileExists(atPath: data + "/" + path, isDirectory: &isDirectory), !isDirectory.boolValue {
                    files[path] = try Data(contentsOf: URL(fileURLWithPath: data + "/" + path))
                }
            }
            return files
        }
        let copied = try files()
        #expect(throws: (any Error).self) { try ledger.ingest(batch(15..<16), recordedAt: 3_000) }
        ledger.close()
        let closed = try files()
        #expect(closed.keys.sorted() == copied.keys.sorted(), "no file added to the copy, nor removed")
        #expect(copied.keys.filter { closed[$0] != copied[$0] }.sorted() == [], "files of the copy changed")
        #expect(try LogReader(directory: data + "/log").summary().records == 10)
        #expect(try LogReader(directory: directory.file("aside/log")).summary().records == 15)
        let reopened = try Ledger(directory: data)
        defer { reopened.close() }
        #expect(reopened.foldedEvents == 10)
    }
}
