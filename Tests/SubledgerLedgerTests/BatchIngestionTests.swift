import Foundation
import SubledgerLog
import SubledgerSimulator
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

/// A CLI batch is verified ahead of storage, chunk after chunk; what it reports and stores
/// must still follow the input line by line.
@Suite("Ledger: batch ingestion across chunks")
struct BatchIngestionTests {
    let directory = TemporaryDirectory()

    @Test("a batch of several chunks with bad lines and repeats scattered through it gets every outcome in input order, and the log holds the appended lines in that order")
    func outcomesFollowTheInputAcrossChunks() throws {
        let configuration = Simulator.Configuration(customers: 200, months: 3, seed: 11, start: "2026-01-01", duplicates: 0, reorder: 0)
        _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
        let notifications = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
        enum Expected: Equatable { case appended(Int), duplicate, rejected }
        var lines: [IngestLine] = []
        var expected: [Expected] = []
        for (index, notification) in notifications.enumerated() {
            if index % 9 == 4 {
                lines.append(IngestLine(bytes: Array("not a signed message \(index)".utf8), line: lines.count + 1, source: "mixed"))
                expected.append(.rejected)
            }
            lines.append(IngestLine(bytes: notification, line: lines.count + 1, source: "mixed"))
            expected.append(.appended(index))
            if index % 13 == 7 {
                lines.append(IngestLine(bytes: notifications[index - 5], line: lines.count + 1, source: "mixed"))
                expected.append(.duplicate)
            }
        }
        try #require(lines.count > 2 * IngestionPipeline.chunkSize + 1)

        let data = directory.file("data")
        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                  rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: data)
        defer { ledger.close() }
        let outcomes = try ledger.ingest(lines, recordedAt: 1)

        #expect(outcomes.count == lines.count)
        var positions: [LogPosition] = []
        for (index, (outcome, want)) in zip(outcomes, expected).enumerated() {
            switch (outcome, want) {
            case (.appended(let position), .appended): positions.append(LogPosition(rawValue: UInt64(position)!))
            case (.duplicate, .duplicate): break
            case (.rejected(let reason, _), .rejected): #expect(reason == "not_jws", "line \(index + 1)")
            default: Issue.record("line \(index + 1): \(outcome), expected \(want)")
            }
        }
        #expect(positions == positions.sorted() && Set(positions).count == notifications.count)
        var logged: [LogPosition] = []
        try LogReader(directory: ledger.layout.log).scan(from: .start) { entry in
            logged.append(entry.position)
            return true
        }
        #expect(logged == positions)
    }
}
