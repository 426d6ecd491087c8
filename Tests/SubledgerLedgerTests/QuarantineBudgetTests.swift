import Foundation
@testable import SubledgerLedger
import SubledgerJWS
import SubledgerTestSupport
import Testing

/// The open webhook cannot fill the disk through the quarantine: past its budget, webhook bodies
/// that fail verification are counted, not kept; `ingest`'s lines always are.
@Suite("Quarantine budget")
struct QuarantineBudgetTests {
    @Test("webhook bodies are kept until the quarantine holds its budget, then counted; ingest's lines are kept past it")
    func budget() throws {
        let directory = TemporaryDirectory()
        let quarantine = try Quarantine(directory: directory.file("quarantine"), webhookBudget: 64 << 10)
        func body(_ index: Int) -> [UInt8] { [UInt8(index)] + [UInt8](repeating: UInt8(ascii: "x"), count: 10 << 10) }
        for index in 1...10 {
            try quarantine.add(IngestLine(bytes: body(index), line: index, source: IngestLine.webhookSource), reason: .signatureInvalid, detail: "", at: 1)
        }
        try quarantine.add(IngestLine(bytes: body(11), line: 1, source: "notifications.jsonl"), reason: .signatureInvalid, detail: "", at: 1)
        quarantine.close()
        let kept = try Quarantine.entries(in: directory.file("quarantine"))
        #expect(kept.filter { $0.source == IngestLine.webhookSource }.count == 7)
        #expect(kept.filter { $0.source == "notifications.jsonl" }.count == 1)
        #expect(quarantine.notKept.load(ordering: .relaxed) == 3)
    }

    @Test("a chunk's rejected lines are kept together: the same bytes twice in it once, and its webhook bodies weighed against the budget as it fills")
    func chunkKeptTogether() throws {
        let directory = TemporaryDirectory()
        let quarantine = try Quarantine(directory: directory.file("quarantine"), webhookBudget: 64 << 10)
        defer { quarantine.close() }
        func body(_ index: Int) -> [UInt8] { [UInt8(index)] + [UInt8](repeating: UInt8(ascii: "x"), count: 10 << 10) }
        let chunk = (1...10).map { Quarantine.Rejected(line: IngestLine(bytes: body($0), line: $0, source: IngestLine.webhookSource), reason: .signatureInvalid, detail: "") }
        let lines = [1, 2, 1].map { Quarantine.Rejected(line: IngestLine(bytes: body($0 + 20), line: $0, source: "file.jsonl"), reason: .chainUntrusted, detail: "") }
        try quarantine.add(lines + chunk, at: 1)
        let kept = try Quarantine.entries(in: directory.file("quarantine"))
        #expect(kept.filter { $0.source == "file.jsonl" }.map(\.line) == [1, 2])
        #expect(kept.filter { $0.source == IngestLine.webhookSource }.count == 5, "two file lines and five bodies fill 64 KiB")
        #expect(quarantine.notKept.load(ordering: .relaxed) == 5)
        #expect(try quarantine.unresolvedCount() == 7)
    }

    @Test("webhook bodies no App Store signature vouches for fill a budget of their own, also after a restart; the App Store's own are kept past it")
    func unsignedBodiesHaveTheirOwnBudget() throws {
        let directory = TemporaryDirectory()
        func body(_ index: Int) -> [UInt8] { [UInt8(index)] + [UInt8](repeating: UInt8(ascii: "x"), count: 10 << 10) }
        func rejected(_ index: Int, signed: Bool, source: String = IngestLine.webhookSource) -> Quarantine.Rejected {
            Quarantine.Rejected(line: IngestLine(bytes: body(index), line: index, source: source), reason: signed ? .bundleMismatch : .signatureInvalid, detail: "", signedByAppStore: signed)
        }
        var quarantine = try Quarantine(directory: directory.file("quarantine"), unsignedWebhookBudget: 32 << 10)
        try quarantine.add((1...5).map { rejected($0, signed: false) }, at: 1)
        #expect(quarantine.notKept.load(ordering: .relaxed) == 1, "four bodies of 10 KiB reach 32 KiB")
        try quarantine.add([rejected(6, signed: true), rejected(7, signed: false, source: "notifications.jsonl")], at: 1)
        quarantine.close()
        // Reopened, it knows what it holds of each from the entries themselves.
        quarantine = try Quarantine(directory: directory.file("quarantine"), unsignedWebhookBudget: 32 << 10)
        defer { quarantine.close() }
        try quarantine.add([rejected(8, signed: false), rejected(9, signed: true)], at: 2)
        #expect(quarantine.notKept.load(ordering: .relaxed) == 1)
        let kept = try Quarantine.entries(in: directory.file("quarantine"))
        #expect(kept.map(\.line) == [1, 2, 3, 4, 6, 7, 9])
        #expect(kept.filter(\.signedByAppStore).map(\.line) == [6, 9])
    }

    @Test("an unsigned body resolved by its redelivery leaves room in the unsigned budget at once, not only after a restart")
    func resolvedUnsignedBodiesFreeTheirBudget() throws {
        let directory = TemporaryDirectory()
        func body(_ index: Int) -> [UInt8] { [UInt8(index)] + [UInt8](repeating: UInt8(ascii: "x"), count: 10 << 10) }
        func rejected(_ index: Int) -> Quarantine.Rejected {
            Quarantine.Rejected(line: IngestLine(bytes: body(index), line: index, source: IngestLine.webhookSource), reason: .signatureInvalid, detail: "")
        }
        let quarantine = try Quarantine(directory: directory.file("quarantine"), unsignedWebhookBudget: 32 << 10)
        defer { quarantine.close() }
        try quarantine.add((1...4).map(rejected), at: 1)
        let redelivered = [1, 2].map { IngestLine(bytes: body($0), line: $0, source: IngestLine.webhookSource) }
        try quarantine.resolve(try quarantine.entries(holding: redelivered))
        try quarantine.add((5...7).map(rejected), at: 2)
        #expect(quarantine.notKept.load(ordering: .relaxed) == 1, "two bodies resolved make room for two more of 10 KiB under 32 KiB")
        #expect(try Quarantine.entries(in: directory.file("quarantine")).map(\.line) == [3, 4, 5, 6])
    }

    @Test("a chunk of large rejected lines is written a few MiB at a time, so no segment grows far past its 16 MiB")
    func largeChunkWrittenInPieces() throws {
        let directory = TemporaryDirectory()
        let quarantine = try Quarantine(directory: directory.file("quarantine"))
        defer { quarantine.close() }
        let lines = (0..<24).map { index in
            Quarantine.Rejected(line: IngestLine(bytes: [UInt8(index)] + [UInt8](repeating: 0x61, count: 1 << 20), line: index, source: "big.jsonl"), reason: .notJWS, detail: "")
        }
        try quarantine.add(lines, at: 1)
        #expect(try quarantine.unresolvedCount() == 24)
        let segments = try FileManager.default.contentsOfDirectory(atPath: directory.file("quarantine")).filter { $0.hasSuffix(".seg") }
        #expect(segments.count >= 2)
        for segment in segments {
            let size = try FileManager.default.attributesOfItem(atPath: directory.file("quarantine/" + segment))[.size] as! Int
            #expect(size <= 16 << 20 + Quarantine.writeBytes + (1 << 20) + 4096, "\(segment): \(size)")
        }
    }

    @Test("the same bytes rejected again are kept once (the App Store sends again what got no 200), and again once resolved")
    func sameBytesKeptOnce() throws {
        let directory = TemporaryDirectory()
        var quarantine = try Quarantine(directory: directory.file("quarantine"))
        let body = Array("{\"signedPayload\": \"a.b.c\"}".utf8)
        for _ in 1...6 { try quarantine.add(IngestLine(bytes: body, line: 1, source: IngestLine.webhookSource), reason: .signatureInvalid, detail: "", at: 1) }
        try quarantine.add(IngestLine(bytes: body + [0x20], line: 1, source: IngestLine.webhookSource), reason: .signatureInvalid, detail: "", at: 1)
        #expect(try Quarantine.entries(in: directory.file("quarantine")).count == 2)
        quarantine.close()
        // Known across processes too: the first rejection reads what the quarantine holds.
        quarantine = try Quarantine(directory: directory.file("quarantine"))
        try quarantine.add(IngestLine(bytes: body, line: 1, source: IngestLine.webhookSource), reason: .signatureInvalid, detail: "", at: 2)
        let entries = try Quarantine.entries(in: directory.file("quarantine"))
        #expect(entries.count == 2)
        try quarantine.resolve(entries.map(\.position))
        try quarantine.add(IngestLine(bytes: body, line: 1, source: IngestLine.webhookSource), reason: .signatureInvalid, detail: "", at: 3)
        #expect(try Quarantine.entries(in: directory.file("quarantine")).map(\.recordedAt) == [3])
        quarantine.close()
    }
}

extension Quarantine {
    /// One line rejected on its own, as the webhook's are.
    func add(_ line: IngestLine, reason: VerificationError.Reason, detail: String, at recordedAt: Int64) throws {
        try add([Rejected(line: line, reason: reason, detail: detail)], at: recordedAt)
    }
}
