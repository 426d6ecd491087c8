import Foundation
import SubledgerLog
import SubledgerSimulator
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

/// `quarantine retry` after the configuration is fixed, and `quarantine list`, over more entries
/// than one retry chunk.
@Suite("Quarantine retry")
struct QuarantineRetryTests {
    let directory = TemporaryDirectory()
    var data: String { directory.file("data") }

    /// Every line of a simulation rejected as chain_untrusted: the ledger trusts another root.
    func rejectedWorkload() throws -> [IngestLine] {
        for (name, customers, seed) in [("sim", 120, UInt64(41)), ("other", 2, 42)] {
            _ = try Simulator(configuration: Simulator.Configuration(customers: customers, months: 3, seed: seed, start: "2026-01-01", duplicates: 0, reorder: 0))
                .run(to: directory.file(name))
        }
        let lines = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n")
            .enumerated().map { IngestLine(bytes: Array($1.utf8), line: $0 + 1, source: "sim") }
        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                  rootFiles: [directory.file("other/root.cer")], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: data)
        defer { ledger.close() }
        _ = try ledger.ingest(lines, recordedAt: 1)
        return lines
    }

    @Test("a retry that meets another reason restates the entry with it (the first sent a user back to what was fixed); a listing reads no entry's bytes")
    func retryRestatesTheReason() throws {
        let lines = try rejectedWorkload()
        #expect(lines.count > Ledger.retryChunk, "more than one chunk")
        let listed = try Ledger.quarantined(directory: data)
        #expect(listed.count == lines.count && listed.allSatisfy { $0.reason == "chain_untrusted" && $0.bytes.isEmpty && $0.size > 0 })
        // The root is fixed; the environment now taken is not the workload's.
        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Sandbox"],
                                  rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        try {
            let ledger = try Ledger(directory: data)
            defer { ledger.close() }
            let results = try ledger.retryQuarantine(recordedAt: 2)
            #expect(results.count == lines.count && results.allSatisfy { if case .rejected("environment_not_accepted", _) = $0.1 { true } else { false } })
        }()
        let restated = try Ledger.quarantined(directory: data)
        #expect(restated.count == lines.count && restated.allSatisfy { $0.reason == "environment_not_accepted" })
        #expect(Set(restated.map(\.line)) == Set(lines.map(\.line)))
        // Fixed for good: every entry goes in once, and the quarantine is empty.
        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                  rootFiles: [], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: data)
        defer { ledger.close() }
        let results = try ledger.retryQuarantine(recordedAt: 3)
        #expect(results.allSatisfy { if case .rejected = $0.1 { false } else { true } })
        #expect(try Ledger.quarantined(directory: ledger.layout.root).isEmpty)
    }

    /// A quarantine at `directory` holding three lines rejected as chain_untrusted.
    func threeEntries(in directory: String) throws -> Quarantine {
        let quarantine = try Quarantine(directory: directory)
        for index in 1...3 {
            try quarantine.add(IngestLine(bytes: Array("line \(index)".utf8), line: index, source: "input"), reason: .chainUntrusted, detail: "", at: 1)
        }
        return quarantine
    }

    @Test("a retry reports a restated entry where the quarantine now keeps it, as `quarantine list` shows it")
    func retryReportsWhereARestatedEntryIsKept() throws {
        _ = try rejectedWorkload()
        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Sandbox"],
                                  rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        let results = try {
            let ledger = try Ledger(directory: data)
            defer { ledger.close() }
            return try ledger.retryQuarantine(recordedAt: 2)
        }()
        let listed = try Ledger.quarantined(directory: data)
        #expect(results.map(\.0.position) == listed.map(\.position))
        #expect(results.map(\.0.line) == listed.map(\.line))
    }

    @Test("an entry restated by a retry killed before it marked the old one resolved is listed once, with the new reason, and counted once")
    func restatementCutShortListsEachEntryOnce() throws {
        let quarantineDirectory = directory.file("quarantine")
        let quarantine = try threeEntries(in: quarantineDirectory)
        let kept = try Quarantine.entries(in: quarantineDirectory)
        let moved = try quarantine.restate(kept.map { ($0, .environmentNotAccepted, "now Sandbox only") })
        // Kill -9 after the new entries were written, before the marks resolving the old ones:
        // the log ends after the last new entry, and was not closed.
        let segment = quarantineDirectory + "/00000000000000000000.seg"
        var lastEnd: UInt64 = 0
        try LogReader(directory: quarantineDirectory).scan { record in
            if record.position.rawValue == moved.last! { lastEnd = record.position.rawValue + UInt64(LogFormat.frameHeaderSize + record.payload.count) }
            return true
        }
        #expect(lastEnd > 0)
        #expect(truncate(segment, off_t(lastEnd)) == 0)

        var each: [QuarantineEntry] = []
        try Quarantine.forEachUnresolved(in: quarantineDirectory) { each.append($0) }
        #expect(each.map(\.position) == moved)
        #expect(each.allSatisfy { $0.reason == "environment_not_accepted" })
        #expect(try Quarantine.entries(in: quarantineDirectory).map(\.position) == moved)
        #expect(try Quarantine.unresolvedCount(in: quarantineDirectory) == 3)
    }

    @Test("`quarantine list` and `stats` of a log closed cleanly whose last entry was cut short since is damage (exit 3), not a listing one entry short")
    func listingFindsADamagedLastEntry() throws {
        let quarantineDirectory = directory.file("quarantine")
        let quarantine = try threeEntries(in: quarantineDirectory)
        quarantine.close()
        let segment = quarantineDirectory + "/00000000000000000000.seg"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int)
        #expect(truncate(segment, off_t(size - 5)) == 0)
        #expect(throws: LogError.self) { try Quarantine.forEachUnresolved(in: quarantineDirectory) { _ in } }
        #expect(throws: LogError.self) { try Quarantine.unresolvedCount(in: quarantineDirectory) }
    }

    @Test("a quarantine damaged in its middle no longer stops the ledger opening for ingestion: it is set aside whole, its readable entries are kept in a new one, and a retry after the fix appends them")
    func damagedQuarantineIsSetAside() throws {
        let lines = try rejectedWorkload()
        let segment = directory.file("data/quarantine/00000000000000000000.seg")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: segment))
        let found = #expect(throws: LogError.self) { try Ledger.quarantined(directory: data) }
        #expect(found?.description.contains("the next `ingest`, `serve` or `quarantine retry` sets the damaged quarantine aside") == true)
        // As a command prints it: named by the log's own check, which keeps what mends it.
        #expect(found?.verified().description.contains("the next `ingest`, `serve` or `quarantine retry` sets the damaged quarantine aside") == true, "\(String(describing: found?.verified()))")

        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                  rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: data)
        defer { ledger.close() }
        #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("data/quarantine.damaged-1/00000000000000000000.seg"))) == bytes)
        let kept = try Ledger.quarantined(directory: data)
        #expect(kept.count == lines.count - 1, "only the damaged entry is lost")
        #expect(Set(kept.map(\.line)).isSubset(of: lines.map(\.line)))
        let results = try ledger.retryQuarantine(recordedAt: 2)
        #expect(results.count == kept.count && results.allSatisfy { if case .rejected = $0.1 { false } else { true } })
        #expect(try Ledger.quarantined(directory: data).isEmpty)
    }

    @Test("a salvage of a damaged quarantine killed before its swap is done again whole, and one killed between its renames is finished: no readable entry is lost either way")
    func salvageCutShortLosesNothing() throws {
        let lines = try rejectedWorkload()
        let quarantine = directory.file("data/quarantine")
        let segment = quarantine + "/00000000000000000000.seg"
        var bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: URL(fileURLWithPath: segment))
        // Killed before the swap: part of the new quarantine written, the damaged one in place.
        try FileManager.default.createDirectory(atPath: quarantine + ".salvaged", withIntermediateDirectories: false)
        try Data(bytes.prefix(4096)).write(to: URL(fileURLWithPath: quarantine + ".salvaged/00000000000000000000.seg"))
        try { try Ledger(directory: data).close() }()
        #expect(try Ledger.quarantined(directory: data).count == lines.count - 1)
        #expect(!FileManager.default.fileExists(atPath: quarantine + ".salvaged"))
        // Killed between the renames: the damaged one set aside, the new one not yet in its place.
        try FileManager.default.moveItem(atPath: quarantine, toPath: quarantine + ".salvaged")
        #expect(try Ledger.quarantined(directory: data).count == lines.count - 1, "a listing meanwhile reads the new one where it is")
        try { try Ledger(directory: data).close() }()
        #expect(try Ledger.quarantined(directory: data).count == lines.count - 1)
        #expect(!FileManager.default.fileExists(atPath: quarantine + ".damaged-2"))
    }

    @Test("a rejected line delivered again after the fix (the App Store's retry, a file fed again) resolves its entry when it is stored, appended or a duplicate; others stay")
    func redeliveryResolvesItsEntry() throws {
        let lines = try rejectedWorkload()
        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                  rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: data)
        defer { ledger.close() }
        let first = Array(lines.prefix(40))
        #expect(try ledger.ingest(first, recordedAt: 2).allSatisfy { if case .rejected = $0 { false } else { true } })
        #expect(try Ledger.quarantined(directory: data).count == lines.count - first.count)
        // Once more, as the webhook: duplicates now, and what they still resolve is nothing left of theirs.
        let again = lines[40..<60].map { IngestLine(bytes: $0.bytes, line: 1, source: IngestLine.webhookSource) }
        #expect(try ledger.ingest(Array(lines[40..<50]), recordedAt: 3).allSatisfy { if case .appended = $0 { true } else { false } })
        #expect(try ledger.ingest(again, recordedAt: 4).allSatisfy { if case .rejected = $0 { false } else { true } })
        // Kept as a webhook body, fed from a file with its line end (CR LF here): the same line.
        let fromFile = lines[60..<70].map { IngestLine(bytes: $0.bytes + Array("\r\n".utf8), line: $0.line, source: "file") }
        #expect(try ledger.ingest(fromFile, recordedAt: 5).allSatisfy { if case .appended = $0 { true } else { false } })
        let left = try Ledger.quarantined(directory: data)
        #expect(Set(left.map(\.line)) == Set(lines.dropFirst(70).map(\.line)))
    }

    @Test("a line kept truncated says so and is not retried, since what is kept cannot verify: the original is to be fed again")
    func truncatedLineIsNotRetried() throws {
        let lines = try rejectedWorkload()
        let padded = Array("{\"signedPayload\": \"".utf8) + Array(String(decoding: lines[0].bytes, as: UTF8.self).split(separator: "\"")[3].utf8)
            + Array("\", \"padding\": \"".utf8) + Array(repeating: UInt8(ascii: "x"), count: 2 << 20) + Array("\"}".utf8)
        try {
            let ledger = try Ledger(directory: data)
            defer { ledger.close() }
            // Longer than any signed message: refused unread, whatever it holds past the cut.
            #expect(try ledger.ingest([IngestLine(bytes: padded, line: 1, source: "big")], recordedAt: 4).allSatisfy {
                if case .rejected("malformed_json", let detail) = $0 { detail.contains("longer than 1 MiB") } else { false }
            })
        }()
        let big = try #require(try Ledger.quarantined(directory: data).first { $0.source == "big" })
        #expect(big.truncated && big.size == 1 << 20)
        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                  rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: data)
        defer { ledger.close() }
        let result = try #require(try ledger.retryQuarantine(recordedAt: 5).first { $0.0.source == "big" })
        guard case .rejected(let reason, let detail) = result.1 else { Issue.record("a truncated line was let in"); return }
        #expect(reason == "malformed_json" && detail.contains("feed the original line again"))
        #expect(try Ledger.quarantined(directory: ledger.layout.root).map(\.source) == ["big"])
    }
}
