import SubledgerCore
import Foundation
import SubledgerEvents
@testable import SubledgerLedger
import SubledgerLog
import SubledgerProjections
import SubledgerSimulator
import SubledgerTestSupport
import Testing

/// `events --reverify` verifies each event's stored evidence again; a changed byte in the
/// evidence log must fail exactly the event it belongs to.
@Suite("events --reverify: stored evidence verified again, damage named by event")
struct EventReverifyTests {
    let directory = TemporaryDirectory()

    func ledger() throws -> Ledger {
        let configuration = Simulator.Configuration(customers: 15, months: 3, seed: 23, start: "2026-01-01", duplicates: 0, reorder: 0)
        _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
        let lines = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
        _ = try Ledger.initialize(directory: directory.file("data"), bundleId: "com.example.subledger", appAppleId: 1_234_567_890,
                                  environments: ["Production"], rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: directory.file("data"))
        _ = try ledger.ingest(lines.enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: "sim") }, recordedAt: 0)
        return ledger
    }

    static func reverified(_ ledger: Ledger) throws -> [EventItem] {
        var query = EventQuery()
        query.reverify = true
        return try ledger.read { try $0.events(query) }.events
    }

    /// Flips one byte near the end of the evidence record at `position`; with `reseal`, writes
    /// the frame's checksum again, as someone rewriting the record on purpose would.
    func tamper(evidenceAt position: UInt64, reseal: Bool) throws {
        let evidence = directory.file("data/evidence")
        let segments = try FileManager.default.contentsOfDirectory(atPath: evidence).filter { $0.hasSuffix(".seg") }
            .compactMap { name in UInt64(name.prefix(20)).map { (first: $0, name: name) } }.filter { $0.first <= position }
        let segment = segments.max { $0.first < $1.first }!
        let path = evidence + "/" + segment.name
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let frame = Int(position - segment.first)
        let length = Int(bytes[frame]) | Int(bytes[frame + 1]) << 8 | Int(bytes[frame + 2]) << 16 | Int(bytes[frame + 3]) << 24
        bytes[frame + 10 + length - 20] ^= 0x01
        if reseal {
            let crc = CRC32C.mask(CRC32C.checksum(Array(bytes[(frame + 8)..<(frame + 10 + length)])))
            for index in 0..<4 { bytes[frame + 4 + index] = UInt8(truncatingIfNeeded: crc >> (8 * index)) }
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Rewrites the event record at `position` with `change` made to its event (of the same
    /// encoded size) and its checksum written again: every frame check passes.
    func tamper(eventAt position: LogPosition, _ change: (inout Event) -> Void) throws {
        let path = directory.file("data/log/00000000000000000000.seg")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let frame = Int(position.rawValue)
        let length = Int(bytes[frame]) | Int(bytes[frame + 1]) << 8 | Int(bytes[frame + 2]) << 16 | Int(bytes[frame + 3]) << 24
        let eventStart = frame + 10 + EventRecord.headerSize
        var event = try Array(bytes[eventStart..<(frame + 10 + length)]).withUnsafeBytes { try EventCodec.decode($0) }
        change(&event)
        var encoded: [UInt8] = []
        EventCodec.encode(event, into: &encoded)
        try #require(encoded.count == frame + 10 + length - eventStart, "the change keeps the record's size")
        bytes.replaceSubrange(eventStart..<(frame + 10 + length), with: encoded)
        let crc = CRC32C.mask(CRC32C.checksum(Array(bytes[(frame + 8)..<(frame + 10 + length)])))
        for index in 0..<4 { bytes[frame + 4 + index] = UInt8(truncatingIfNeeded: crc >> (8 * index)) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("an event whose fields were changed and its checksum written again fails as event_differs, though its evidence verifies")
    func changedEventNamed() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let before = try Self.reverified(ledger)
        let target = try #require(before.dropFirst(5).first { ($0.event.transaction?.price ?? 0) > 1000 })
        try tamper(eventAt: target.position) { $0.transaction!.price! += 1 }
        let after = try Self.reverified(ledger)
        #expect(after.first { $0.position == target.position }?.event.transaction?.price == target.event.transaction!.price! + 1)
        let failed = after.filter { $0.evidence != .verified }
        #expect(failed.map(\.position) == [target.position])
        guard case .failed(let reason, _)? = failed.first?.evidence else { return }
        #expect(reason == "event_differs")
    }

    @Test("evidence accepted in its day still verifies after init narrows the environments: --reverify checks what a message proves, not today's intake")
    func environmentsNarrowedLater() throws {
        try ledger().close()
        _ = try Ledger.initialize(directory: directory.file("data"), bundleId: "com.example.subledger", appAppleId: 1_234_567_890,
                                  environments: ["Sandbox"], rootFiles: [], smallBusiness: false, catalogFile: nil)
        let reopened = try Ledger(directory: directory.file("data"))
        defer { reopened.close() }
        let items = try Self.reverified(reopened)
        #expect(items.count > 20 && items.allSatisfy { $0.event.environment == .production })
        #expect(items.allSatisfy { $0.evidence == .verified }, "\(items.compactMap { $0.evidence == .verified ? nil : $0.evidence })")
    }

    @Test("untouched evidence verifies; a byte changed and resealed fails verification, one left unsealed fails reading; only those events fail")
    func flippedByteNamesItsEvent() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let before = try Self.reverified(ledger)
        #expect(before.count > 20)
        #expect(before.allSatisfy { $0.evidence == .verified })

        let resealed = before[before.count / 3]
        let unsealed = before[2 * before.count / 3]
        try tamper(evidenceAt: resealed.event.evidence.position, reseal: true)
        try tamper(evidenceAt: unsealed.event.evidence.position, reseal: false)

        let after = try Self.reverified(ledger)
        #expect(after.map(\.position) == before.map(\.position))
        let failed = after.filter { $0.evidence != .verified }
        #expect(failed.map(\.position) == [resealed.position, unsealed.position])
        guard failed.count == 2, case .failed(let reason, _) = failed[0].evidence, case .failed(let unreadable, _) = failed[1].evidence else { return }
        #expect(reason != "evidence_unreadable")
        #expect(unreadable == "evidence_unreadable")
        #expect(failed[0].json.serialized().contains("\"evidence\":\"failed: \(reason)\""))
    }

    @Test("a refunded event's details say how: its revocation type and, prorated, the share of the price refunded")
    func refundDetails() throws {
        var transaction = TransactionFacts(transactionId: "1", originalTransactionId: "1")
        transaction.price = 9990
        transaction.currency = "EUR"
        transaction.revocationDate = 1_770_000_000_000
        transaction.revocationType = "REFUND_PRORATED"
        transaction.revocationPercentage = 33_333
        let event = Event(type: .refunded, effectiveAt: 1_770_000_000_000, evidence: EvidenceRef(position: 0, length: 0), transaction: transaction)
        let details = HistoryReport.Item.details(event).serialized()
        #expect(details.contains("\"revocationType\":\"REFUND_PRORATED\""))
        #expect(details.contains("\"revocationPercentage\":33333"))
    }
}
