import Foundation
import SubledgerLog
import SubledgerSimulator
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

/// Events whose evidence is not in the evidence log: a power loss leaves its last batch so, and
/// opening cuts it (`DedupIndexTests.eventsWithoutEvidenceAreCut`); anything more is the evidence
/// log removed or cut short, and cutting then would destroy acknowledged events.
@Suite("Events without evidence beyond a crash's last batch: a lost evidence log is refused")
struct EventsWithoutEvidenceTests {
    let directory = TemporaryDirectory()
    var data: String { directory.file("data") }

    /// Two batches stored at two times; the evidence log's end after the first.
    func ledger() throws -> (firstEvents: UInt64, allEvents: UInt64, evidenceAfterFirst: LogPosition) {
        let configuration = Simulator.Configuration(customers: 12, months: 2, seed: 31, start: "2026-01-01", duplicates: 0, reorder: 0)
        _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
        let lines = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890,
                                  environments: ["Production"], rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: data)
        let half = min(lines.count / 2, 200)
        _ = try ledger.ingest(lines[..<half].enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: "sim") }, recordedAt: 1_000)
        let firstEvents = try events()
        let evidenceAfterFirst = try LogReader(directory: directory.file("data/evidence")).summary().endPosition
        _ = try ledger.ingest(lines[half..<min(lines.count, 2 * half)].enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: "sim") }, recordedAt: 2_000)
        ledger.close()
        return (firstEvents, try events(), evidenceAfterFirst)
    }

    func events() throws -> UInt64 { try LogReader(directory: directory.file("data/log")).summary().records }

    /// Cuts the evidence log's only segment at `end`, and removes the clean-close markers named.
    func loseEvidence(after end: LogPosition, markers: [String]) throws {
        let segment = directory.file("data/evidence/00000000000000000000.seg")
        #expect(truncate(segment, off_t(end.rawValue)) == 0)
        for log in markers { try FileManager.default.removeItem(atPath: directory.file("data/\(log)/CLOSED")) }
    }

    @Test("damage inside the evidence log is its own check's to name, not taken for a short log")
    func damageIsNotShortness() throws {
        _ = try ledger()
        let segment = directory.file("data/evidence/00000000000000000000.seg")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
        bytes[56 + 20] ^= 0x20  // inside the first record, which every later event follows
        try bytes.write(to: URL(fileURLWithPath: segment))
        #expect(try EvidenceCoverage.problems(directory: data).isEmpty)
        #expect(try !LogReader(directory: directory.file("data/evidence")).verify().ok)
    }

    @Test("a missing event log beside evidence is damage too: opening refuses, creates nothing, and verify names it")
    func missingEventLogRefused() throws {
        _ = try ledger()
        try FileManager.default.moveItem(atPath: directory.file("data/log"), toPath: directory.file("log-aside"))
        #expect(try EvidenceCoverage.problems(directory: data).map(\.file) == [directory.file("data/log")])
        #expect(throws: LogError.self) { try Ledger(directory: data) }
        // Reads refuse too, rather than answer for an empty ledger.
        #expect(throws: LogError.self) { try LedgerReader.open(directory: data) }
        #expect(throws: LogError.self) { try LedgerHead.compute(directory: data) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("data/log")))
    }

    @Test("a missing evidence log is damage: opening refuses and the event log keeps every event")
    func missingEvidenceRefused() throws {
        let (_, all, _) = try ledger()
        #expect(try EvidenceCoverage.problems(directory: data).isEmpty)
        try FileManager.default.moveItem(atPath: directory.file("data/evidence"), toPath: directory.file("evidence-aside"))
        // `verify` says so, where each log's own check finds nothing wrong.
        #expect(try EvidenceCoverage.problems(directory: data).map(\.file) == [directory.file("data/evidence")])
        #expect(throws: LogError.self) { try Ledger(directory: data) }
        #expect(throws: LogError.self) { try LedgerReader.open(directory: data) }
        #expect(throws: LogError.self) { try LedgerHead.compute(directory: data) }
        #expect(try events() == all)
        #expect(!FileManager.default.fileExists(atPath: directory.file("data/evidence")), "nothing is created in its place")
    }

    @Test("evidence cut short beside an event log closed cleanly, or under several batches, is damage: opening refuses and cuts nothing", arguments: [
        (["evidence"], false), (["log", "evidence"], true),
    ])
    func evidenceCutShortRefused(markers: [String], bothBatches: Bool) throws {
        let (_, all, evidenceAfterFirst) = try ledger()
        // Both batches lose their evidence, or only the last while the event log says it closed cleanly.
        try loseEvidence(after: bothBatches ? LogPosition(rawValue: UInt64(LogFormat.segmentHeaderSize)) : evidenceAfterFirst, markers: markers)
        #expect(try EvidenceCoverage.problems(directory: data).map(\.kind) == [.truncated])
        #expect(throws: LogError.self) { try Ledger(directory: data) }
        #expect(try events() == all)
    }

    @Test("evidence cut short under several batches, ending in a torn tail (a record cut, or bytes that are no frame): the refusal leaves it as it found it", arguments: [false, true])
    func refusalKeepsTheEvidenceTornTail(garbage: Bool) throws {
        let (_, all, _) = try ledger()
        // Inside the first batch's first message, or at its start with bytes no frame begins
        // with after it: both batches lose their evidence.
        let header = UInt64(LogFormat.segmentHeaderSize)
        try loseEvidence(after: LogPosition(rawValue: garbage ? header : header + 100), markers: ["log", "evidence"])
        let segment = directory.file("data/evidence/00000000000000000000.seg")
        if garbage {
            let handle = try #require(FileHandle(forWritingAtPath: segment))
            try handle.seekToEnd()
            try handle.write(contentsOf: Data(repeating: 0xAB, count: 64))
            try handle.close()
        }
        let before = try Data(contentsOf: URL(fileURLWithPath: segment))
        #expect(throws: LogError.self) { try Ledger(directory: data) }
        #expect(try Data(contentsOf: URL(fileURLWithPath: segment)) == before)
        #expect(try events() == all)
    }
}
