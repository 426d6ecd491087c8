import Foundation
import SubledgerCore
import SubledgerLog
import SubledgerProjections
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

@Suite("An event record whose frame checks out but whose event does not decode")
struct UndecodableEventTests {
    @Test("is damage named by segment, offset and position: verify finds it, and head, history and events stop at it as at a damaged frame")
    func isDamageEverywhere() throws {
        let test = try TestPKILedger(environments: ["Production"])
        let fixtures = test.fixtures(.production)
        func ingest(_ id: String, into ledger: Ledger) throws {
            let transaction = fixtures.transaction(transactionId: id, purchaseDate: TestPKILedger.start)
            let body = fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction)).webhookBody
            _ = try ledger.ingest([IngestLine(bytes: body, line: 1, source: "test")], recordedAt: TestPKILedger.start)
        }
        try ingest("2000000000000701", into: test.ledger)
        test.ledger.close()
        // The index of stored messages as it stood after the first: its checkpoint before the rest.
        let dedup = test.directory.file("data/dedup")
        let early = test.directory.file("dedup-early")
        try FileManager.default.copyItem(atPath: dedup, toPath: early)
        let later = try Ledger(directory: test.directory.file("data"))
        try ingest("2000000000000702", into: later)
        try ingest("2000000000000703", into: later)
        later.close()
        // Opened before the damage, as a server runs: an open after it folds the record again.
        let reopened = try Ledger(directory: test.directory.file("data"))
        let log = test.directory.file("data/log")
        var events: [LogPosition] = []
        try LogReader(directory: log).scan { entry in
            if entry.kind == EventRecord.kind { events.append(entry.position) }
            return true
        }
        // A middle one: the first names the log to its projection.
        let damaged = events[events.count / 2]
        let (path, offset) = try LogReader(directory: log).place(of: damaged)
        let at = Int(offset)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        // The frame: length, CRC, kind and version, then the payload: 8 bytes of recorded time,
        // then the event, whose type code no build knows now.
        let length = Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16
        bytes[at + 18] = 0xFF
        bytes[at + 19] = 0xFF
        let crc = bytes[(at + 8)..<(at + 10 + length)].withUnsafeBytes { CRC32C.checksum($0) }
        let masked = ((crc >> 15) | (crc << 17)) &+ 0xA282_EAD8
        for index in 0..<4 { bytes[at + 4 + index] = UInt8(truncatingIfNeeded: masked >> (8 * index)) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        #expect(try LogReader(directory: log).verify().ok, "every frame still checks out")
        let found = StoredEvents.problems(log: log)
        #expect(found.map(\.kind) == [.badEvent])
        #expect(found.first?.file == path && found.first?.offset == offset && found.first?.detail.contains("position \(damaged)") == true, "\(found)")
        func isBadEvent(_ body: () throws -> Void) -> Bool {
            do { try body() } catch LogError.corrupted(let problem) { return problem.kind == .badEvent && problem.file == path } catch { return false }
            return false
        }
        #expect(isBadEvent { _ = try LedgerHead.compute(directory: test.directory.file("data")) })
        let customer = ["2000000000000701", "2000000000000702", "2000000000000703"][events.count / 2 * 3 / events.count]
        #expect(isBadEvent { _ = try reopened.read { try $0.history(HistoryQuery(id: customer)) } })
        #expect(isBadEvent { _ = try reopened.read { try $0.events(EventQuery()) } })
        reopened.close()
        // An open whose index of stored messages reads on from an earlier checkpoint, over the
        // damaged event, stops there and keeps the index: it was taken for another log's,
        // thrown away and rebuilt, to stop at the same event on every open.
        try FileManager.default.removeItem(atPath: dedup)
        try FileManager.default.copyItem(atPath: early, toPath: dedup)
        let database = dedup + "/data.mdb"
        let kept = try Data(contentsOf: URL(fileURLWithPath: database))
        #expect(isBadEvent { _ = try Ledger(directory: test.directory.file("data")) })
        #expect((try? Data(contentsOf: URL(fileURLWithPath: database))) == kept, "the index is not rebuilt")
        // An open that must read every event again (its index of stored messages gone) stops at
        // it too, as damage (exit 3), where it stopped with the decoder's bare error and exit 1.
        try FileManager.default.removeItem(atPath: test.directory.file("data/dedup"))
        #expect(isBadEvent { _ = try Ledger(directory: test.directory.file("data")) })
    }
}
