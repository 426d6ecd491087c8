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

    func simulatedNotifications(customers: Int) throws -> [[UInt8]] {
        let configuration = Simulator.Configuration(customers: customers, months: 3, seed: 11, start: "2026-01-01", duplicates: 0, reorder: 0)
        _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
        return try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
    }

    func openLedger() throws -> Ledger {
        let data = directory.file("data")
        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                  rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        return try Ledger(directory: data)
    }

    @Test("a batch of several chunks with bad lines and repeats scattered through it gets every outcome in input order, and the log holds the appended lines in that order")
    func outcomesFollowTheInputAcrossChunks() throws {
        let notifications = try simulatedNotifications(customers: 200)
        /// By notification: appended as that one, a duplicate of that one.
        enum Expected: Equatable { case appended(Int), duplicate(Int), rejected }
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
                expected.append(.duplicate(index - 5))
            }
        }
        try #require(lines.count > 2 * IngestionPipeline.chunkSize + 1)

        let ledger = try openLedger()
        defer { ledger.close() }
        let outcomes = try ledger.ingest(lines, recordedAt: 1)

        #expect(outcomes.count == lines.count)
        var positions: [LogPosition] = []
        var appendedAs: [Int: String] = [:]
        for (index, (outcome, want)) in zip(outcomes, expected).enumerated() {
            switch (outcome, want) {
            case (.appended(let position), .appended(let notification)):
                positions.append(LogPosition(rawValue: UInt64(position)!))
                appendedAs[notification] = position
            case (.duplicate(let position), .duplicate(let notification)):
                #expect(position == appendedAs[notification], "line \(index + 1): a duplicate answers with its original's position")
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

    @Test("a batch verified before the batch ahead of it is stored is deduplicated against that batch, and both are stored in the order they were verified")
    func batchesVerifiedAheadAreStoredInOrder() throws {
        let notifications = try simulatedNotifications(customers: 40)
        let half = notifications.count / 2
        let first = notifications[..<half].enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: "first") }
        // The second batch repeats the first batch's last ten messages before its own.
        let second = (notifications[(half - 10)...]).enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: "second") }
        let ledger = try openLedger()
        defer { ledger.close() }

        let verifyingFirst = ledger.verify(first)
        let verifyingSecond = ledger.verify(second)
        let firstOutcomes = try ledger.ingest(verifyingFirst, recordedAt: 1)
        let secondOutcomes = try ledger.ingest(verifyingSecond, recordedAt: 2)

        #expect(firstOutcomes.allSatisfy { if case .appended = $0 { true } else { false } })
        #expect(secondOutcomes.prefix(10).allSatisfy { $0.isDuplicate })
        let positions = (firstOutcomes + secondOutcomes.dropFirst(10)).map { outcome -> UInt64 in
            if case .appended(let position) = outcome { UInt64(position)! } else { 0 }
        }
        #expect(positions.count == notifications.count && positions == positions.sorted() && !positions.contains(0))
        #expect(try LogReader(directory: ledger.layout.log).summary().records == UInt64(notifications.count))
    }
}
