import SubledgerCore
import Foundation
@testable import SubledgerLedger
import SubledgerLog
import SubledgerProjections
import SubledgerSimulator
import SubledgerTestSupport
import Testing

/// `head` and `verify --head`: a digest of the events and their evidence up to a position, kept
/// by later appends and lost by any change before the position, which verification names.
@Suite("Ledger head digest", .serialized)
struct LedgerHeadTests {
    /// A simulated ledger over small segments, so both logs cross several sealed segments (a log
    /// rolls between appends, so the lines go in a few at a time); the head is taken after the
    /// first half of the notifications, then the rest is ingested. The tests change its files, so
    /// they run one at a time.
    final class Fixture: @unchecked Sendable {
        let directory = TemporaryDirectory(sharedByProcess: true)
        let head: LedgerHead
        var data: String { directory.file("data") }

        init() throws {
            let configuration = Simulator.Configuration(customers: 30, months: 6, seed: 19, start: "2026-01-01", duplicates: 0.05, reorder: 0.1)
            _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
            let lines = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
            _ = try Ledger.initialize(directory: directory.file("data"), bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                      rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
            let half = lines.count / 2
            try Self.ingest(lines[..<half], into: directory.file("data"), from: 1)
            head = try LedgerHead.compute(directory: directory.file("data"))
            try Self.ingest(lines[half...], into: directory.file("data"), from: half + 1)
        }

        static func ingest(_ lines: ArraySlice<[UInt8]>, into data: String, from line: Int) throws {
            let ledger = try Ledger(directory: data, logOptions: LogOptions(segmentSize: 5 << 10, preallocationStep: 0))
            defer { ledger.close() }
            for start in stride(from: lines.startIndex, to: lines.endIndex, by: 4) {
                let batch = lines[start..<min(start + 4, lines.endIndex)]
                _ = try ledger.ingest(batch.enumerated().map { IngestLine(bytes: $1, line: line + start - lines.startIndex + $0, source: "sim") }, recordedAt: 1_790_000_000_000)
            }
        }

        /// Segment files of one log with their first positions, in order.
        func segments(_ log: String) throws -> [(path: String, first: UInt64)] {
            try FileManager.default.contentsOfDirectory(atPath: directory.file("data/" + log)).filter { $0.hasSuffix(".seg") }.sorted()
                .map { (directory.file("data/\(log)/\($0)"), UInt64($0.prefix(20))!) }
        }

        func verify() throws -> HeadVerification {
            try LedgerHead.verify(directory: data, hash: head.hex, at: head.position)
        }
    }

    static let fixture = Result { try Fixture() }

    /// Rewrites one byte of a file for the length of `body`.
    static func changing(_ path: String, at offset: Int, to transform: (UInt8) -> UInt8, _ body: () throws -> Void) throws {
        let original = try Data(contentsOf: URL(fileURLWithPath: path))
        var changed = original
        changed[offset] = transform(changed[offset])
        try changed.write(to: URL(fileURLWithPath: path))
        defer { try? original.write(to: URL(fileURLWithPath: path)) }
        try body()
    }

    @Test("both logs cross sealed segments before the head, and the head is cheap to recompute the same")
    func shape() throws {
        let fixture = try Self.fixture.get()
        #expect(try fixture.segments("log").filter { $0.first < fixture.head.position.rawValue }.count >= 3)
        #expect(try fixture.segments("evidence").filter { $0.first < fixture.head.evidenceEnd.rawValue }.count >= 3)
        #expect(fixture.head.events > 0 && fixture.head.messages > 0)
        #expect(try LedgerHead.compute(directory: fixture.data, at: fixture.head.position) == fixture.head)
    }

    @Test("later appends keep the head, and verification passes with the full read")
    func keptByAppends() throws {
        let fixture = try Self.fixture.get()
        let latest = try LedgerHead.compute(directory: fixture.data)
        #expect(latest.position > fixture.head.position)
        #expect(latest.hex != fixture.head.hex)
        let verification = try fixture.verify()
        #expect(verification.ok, "\(verification.problems)")
        #expect(verification.actual == fixture.head)
        #expect(try LedgerHead.verify(directory: fixture.data, hash: latest.hex, at: latest.position).ok)
    }

    @Test("a head counted on from a cached one is the head computed afresh, at the latest event and at an earlier one asked after it")
    func cachedHeadsAreFreshHeads() throws {
        let fixture = try Self.fixture.get()
        let cache = LedgerHead.Cache()
        #expect(try LedgerHead.compute(directory: fixture.data, at: fixture.head.position, cache: cache) == fixture.head)
        let latest = try LedgerHead.compute(directory: fixture.data)
        #expect(try LedgerHead.compute(directory: fixture.data, cache: cache) == latest, "counted on from the cached head")
        #expect(try LedgerHead.compute(directory: fixture.data, cache: cache) == latest, "the same head, nothing counted")
        #expect(try LedgerHead.compute(directory: fixture.data, at: fixture.head.position, cache: cache) == fixture.head, "an earlier head counts from the start")
    }

    @Test("a cached head whose last event was cut away (a write that failed part way) and written over is not counted on: the head is the one computed afresh")
    func cachedHeadOfCutEventsIsDropped() throws {
        let fixture = try Self.fixture.get()
        let directory = TemporaryDirectory()
        let (data, saved) = (directory.file("data"), directory.file("saved"))
        let lines = try String(contentsOfFile: fixture.directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                  rootFiles: [fixture.directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        let half = lines.count / 2
        try Fixture.ingest(lines[..<half], into: data, from: 1)
        try FileManager.default.copyItem(atPath: data, toPath: saved)
        try Fixture.ingest(lines[half..<(half + 8)], into: data, from: half + 1)
        let cache = LedgerHead.Cache()
        _ = try LedgerHead.compute(directory: data, cache: cache)
        // The log as it was before those 8 lines, then other messages appended in their place.
        try FileManager.default.removeItem(atPath: data)
        try FileManager.default.moveItem(atPath: saved, toPath: data)
        try Fixture.ingest(lines[(half + 8)...], into: data, from: half + 9)
        #expect(try LedgerHead.compute(directory: data, cache: cache) == LedgerHead.compute(directory: data))
    }

    @Test("head's logEnd given for its position is refused as the caller's mistake, naming the position to pass: on a ledger grown past it, and on one that ends there")
    func logEndGivenForPosition() throws {
        let fixture = try Self.fixture.get()
        let latest = try LedgerHead.compute(directory: fixture.data)
        for head in [fixture.head, latest] {
            let error = try #require(throws: QueryError.self) { try LedgerHead.verify(directory: fixture.data, hash: head.hex, at: head.eventLogEnd) }
            #expect(error.code == "invalid_position")
            #expect(error.detail.contains("pass --at \(head.position)"), "\(error.detail)")
        }
        // Another hash at the same position is not taken for the mistake: it fails as before.
        let other = String(repeating: "0", count: 64)
        #expect(try !LedgerHead.verify(directory: fixture.data, hash: other, at: fixture.head.eventLogEnd).ok)
        #expect(try !LedgerHead.verify(directory: fixture.data, hash: other, at: latest.eventLogEnd).ok)
    }

    @Test("a changed byte anywhere before the head's position, in either log, fails and names the segment", arguments: ["log", "evidence"])
    func anyByteChanged(log: String) throws {
        let fixture = try Self.fixture.get()
        let cut = log == "log" ? fixture.head.eventLogEnd.rawValue : fixture.head.evidenceEnd.rawValue
        let segments = try fixture.segments(log).filter { $0.first < cut }
        // Seeded: the sampled offsets are the same on every run.
        var sampler = SplitMix64(log == "log" ? 1 : 2)
        var targets: [(path: String, offset: Int)] = []
        for segment in segments {
            let size = try FileManager.default.attributesOfItem(atPath: segment.path)[.size] as! Int
            let covered = min(size, Int(cut - segment.first))
            // The header, the first and last covered bytes, the footer's last byte, and samples between.
            targets += [0, 13, 52, 56, 57, 66, covered - 1, size - 1].filter { $0 < covered }.map { (segment.path, $0) }
            targets += (0..<12).map { _ in (segment.path, Int(sampler.next() % UInt64(covered))) }
        }
        for (path, offset) in targets {
            try Self.changing(path, at: offset, to: { $0 ^ 0x20 }) {
                let verification = try fixture.verify()
                #expect(!verification.ok, "\(path) at \(offset) changed, yet verification passed")
                #expect(verification.problems.contains { $0.file == path },
                        "\(path) at \(offset): \(verification.problems.map { "\($0.kind) \($0.file) \($0.offset)" })")
            }
        }
        #expect(targets.count >= 60)
        #expect(try fixture.verify().ok)
    }

    @Test("a damaged JWS header that messages share names their first events and how many messages share it, not no event at all")
    func damagedSharedHeader() throws {
        let fixture = try Self.fixture.get()
        // The evidence log's first record is the first message's JWS header (x5c chain), which
        // every message signed with that chain refers to.
        let first = try fixture.segments("evidence")[0].path
        try Self.changing(first, at: 56 + 100, to: { $0 ^ 0x20 }) {
            let problems = try fixture.verify().problems
            let header = try #require(problems.first { $0.log == "evidence" && $0.position.rawValue == 56 }, "\(problems)")
            #expect(header.kind == "crc_mismatch")
            #expect(header.events.count == LedgerHead.namedEvents, "\(header.events)")
            #expect(header.events.first == LogPosition(rawValue: 56), "the first event is the first message's")
            let shared = try #require(header.detail.firstMatch(of: /that (\d+) stored messages share/)?.1).description
            #expect(Int(shared)! >= fixture.head.messages / 2, "\(header.detail)")
        }
        #expect(try fixture.verify().ok)
    }

    @Test("head refuses to digest a byte that fails its own check: a frame before the cut, a sealed segment's header or footer", arguments: ["log", "evidence"])
    func damageRefused(log: String) throws {
        let fixture = try Self.fixture.get()
        let cut = log == "log" ? fixture.head.eventLogEnd.rawValue : fixture.head.evidenceEnd.rawValue
        let segments = try fixture.segments(log).filter { $0.first < cut }
        let sealed = segments[segments.count - 2]
        let sealedSize = try FileManager.default.attributesOfItem(atPath: sealed.path)[.size] as! Int
        let covered = Int(cut - segments.last!.first)
        let targets = [(sealed.path, 13), (sealed.path, sealedSize - 1), (segments.last!.path, 70), (segments.last!.path, covered - 1)]
        for (path, offset) in targets {
            try Self.changing(path, at: offset, to: { $0 ^ 0x20 }) {
                #expect {
                    _ = try LedgerHead.compute(directory: fixture.data, at: fixture.head.position)
                } throws: { error in
                    guard case LogError.corrupted(let problem) = error else { return false }
                    return problem.file == path
                }
            }
        }
        #expect(try LedgerHead.compute(directory: fixture.data, at: fixture.head.position) == fixture.head)
    }

    @Test("an event rewritten with its frame checksum fixed still fails, named by its segment's footer: also in the segment holding the head's position, sealed since the head was taken")
    func consistentRewrite() throws {
        let fixture = try Self.fixture.get()
        let segments = try fixture.segments("log").filter { $0.first < fixture.head.eventLogEnd.rawValue }
        for segment in [segments.first!, segments.last!] {
            let original = try Data(contentsOf: URL(fileURLWithPath: segment.path))
            var bytes = [UInt8](original)
            // The first record: flip a payload byte, then store the frame's CRC anew.
            let length = Int(bytes[56]) | Int(bytes[57]) << 8 | Int(bytes[58]) << 16
            bytes[66 + length / 2] ^= 0x01
            let crc = bytes[64..<(66 + length)].withUnsafeBytes { CRC32C.checksum($0) }
            let masked = ((crc >> 15) | (crc << 17)) &+ 0xA282_EAD8
            for index in 0..<4 { bytes[60 + index] = UInt8(truncatingIfNeeded: masked >> (8 * index)) }
            try Data(bytes).write(to: URL(fileURLWithPath: segment.path))
            defer { try? original.write(to: URL(fileURLWithPath: segment.path)) }
            let verification = try fixture.verify()
            #expect(!verification.ok)
            #expect(verification.problems.contains { $0.file == segment.path && $0.kind == "chain_mismatch" }, "\(verification.problems)")
            #expect(!verification.problems.contains { $0.kind == "digest_mismatch" }, "not a rewrite that kept every checksum")
            if segment.path != segments.last!.path {
                // What makes `head` cheap: a sealed segment counts through its footer, so head
                // alone does not see the edit (its event count and evidence are unchanged);
                // verification reads the records and does.
                #expect(try LedgerHead.compute(directory: fixture.data, at: fixture.head.position).hex == fixture.head.hex)
            }
        }
        #expect(try fixture.verify().ok)
    }

    @Test("a log cut short before the head's position fails as truncated, naming the events it reaches", arguments: ["log", "evidence"])
    func truncated(log: String) throws {
        let fixture = try Self.fixture.get()
        let cut = log == "log" ? fixture.head.eventLogEnd.rawValue : fixture.head.evidenceEnd.rawValue
        let segment = try fixture.segments(log).last { $0.first < cut }!
        let original = try Data(contentsOf: URL(fileURLWithPath: segment.path))
        defer { try? original.write(to: URL(fileURLWithPath: segment.path)) }
        try original.prefix(Int(cut - segment.first) / 2).write(to: URL(fileURLWithPath: segment.path))
        let verification = try fixture.verify()
        #expect(!verification.ok)
        #expect(verification.problems.contains { $0.kind == "truncated" && !$0.events.isEmpty }, "\(verification.problems)")
    }

    @Test("a log cut exactly at the head's event, or inside it, fails as truncated: the event is what was cut, not a position given wrong")
    func cutAtTheHead() throws {
        let fixture = try Self.fixture.get()
        let position = fixture.head.position.rawValue
        let segment = try fixture.segments("log").last { $0.first <= position }!
        let original = try Data(contentsOf: URL(fileURLWithPath: segment.path))
        defer { try? original.write(to: URL(fileURLWithPath: segment.path)) }
        for cut in [position, position + 5] {
            try original.prefix(Int(cut - segment.first)).write(to: URL(fileURLWithPath: segment.path))
            let verification = try fixture.verify()
            #expect(verification.problems.contains { $0.kind == "truncated" }, "cut at \(cut): \(verification.problems)")
        }
    }

    @Test("a removed evidence segment is named as removed: head refuses it, opening names it, and an event's evidence read is damage, not a missing argument")
    func removedEvidenceSegment() throws {
        let fixture = try Self.fixture.get()
        let first = try fixture.segments("evidence")[0]
        let original = try Data(contentsOf: URL(fileURLWithPath: first.path))
        try FileManager.default.removeItem(atPath: first.path)
        defer { try? original.write(to: URL(fileURLWithPath: first.path)) }
        func namesRemoved(_ error: any Error) -> Bool {
            guard case LogError.corrupted(let problem) = error else { return false }
            return problem.kind == .truncated && problem.detail.contains("00000000000000000000.seg was removed")
        }
        #expect(performing: { _ = try LedgerHead.compute(directory: fixture.data) }, throws: namesRemoved)
        #expect(performing: { _ = try Ledger(directory: fixture.data) }, throws: namesRemoved)
        #expect(performing: {
            var query = EventQuery()
            query.raw = true
            _ = try LedgerReader.open(directory: fixture.data).events(query)
        }, throws: namesRemoved)
    }
}
