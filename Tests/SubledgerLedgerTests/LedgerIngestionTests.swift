import Foundation
import SubledgerEvents
import SubledgerJWS
import SubledgerLog
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

@Suite("Ledger ingestion of real Apple-signed data", .enabled(if: Corpus.available, Corpus.skipMessage))
struct LedgerIngestionTests {
    static let bundle = "GeniusParentingAI"

    func makeLedger(_ dir: TemporaryDirectory, bundle: String = bundle, environments: [String] = ["Sandbox"]) throws -> Ledger {
        _ = try Ledger.initialize(directory: dir.path, bundleId: bundle, appAppleId: nil, environments: environments, rootFiles: [Corpus.root], smallBusiness: false, catalogFile: nil)
        return try Ledger(directory: dir.path)
    }

    func lines(_ entries: [Corpus.Entry]) -> [IngestLine] {
        entries.enumerated().map { IngestLine(bytes: $1.jws, line: $0 + 1, source: $1.file) }
    }

    /// Whether `jws` with one character of its signature changed is rejected as `signature_invalid`.
    func rejectsForgery(of jws: [UInt8], in ledger: Ledger) throws -> Bool {
        var forged = jws
        let index = forged.count - 10
        forged[index] = forged[index] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let outcome = try ledger.ingest([IngestLine(bytes: forged, line: 1, source: "forged")], recordedAt: 2)
        return outcome.first.map { if case .rejected("signature_invalid", _) = $0 { true } else { false } } == true
    }

    /// The `signedTransactionInfo` of a notification's JWS, read with Foundation.
    static func nestedTransaction(of jws: [UInt8]) throws -> [UInt8]? {
        var payload = String(decoding: jws, as: UTF8.self).split(separator: ".")[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        payload += String(repeating: "=", count: (4 - payload.count % 4) % 4)
        let json = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: payload))) as? [String: Any]
        return ((json?["data"] as? [String: Any])?["signedTransactionInfo"] as? String).map { Array($0.utf8) }
    }

    /// Notifications and bare transactions (renewal infos are not ingestable on their own).
    func ingestable() throws -> [Corpus.Entry] {
        try Corpus.entries().filter { $0.kind != "renewal" }
    }

    @Test("one app's notifications and transactions are verified and appended; other apps' are bundle_mismatch and quarantined")
    func appendsOneAppRejectsOthers() throws {
        let dir = TemporaryDirectory()
        let ledger = try makeLedger(dir)
        defer { ledger.close() }
        let entries = try ingestable()
        let outcomes = try ledger.ingest(lines(entries), recordedAt: 1)
        let ours = zip(entries, outcomes).filter { $0.0.bundleId == Self.bundle }
        let others = zip(entries, outcomes).filter { $0.0.bundleId != Self.bundle }
        #expect(ours.count > 200)
        for (entry, outcome) in ours {
            switch outcome {
            case .appended, .duplicate: break
            case .rejected(let reason, let detail): Issue.record("\(entry.file) rejected: \(reason) \(detail)")
            }
        }
        #expect(ours.filter { if case .appended = $0.1 { true } else { false } }.count > 100)
        // The corpus holds notifications' nested transactions on their own as well: each is
        // that notification's duplicate, as the contract has it (identical signed content).
        let nested = Set(try ours.filter { $0.0.kind == "notification" }.compactMap { try Self.nestedTransaction(of: $0.0.jws) })
        let copies = ours.filter { $0.0.kind == "transaction" && nested.contains($0.0.jws) }
        #expect(copies.count > 50)
        #expect(copies.allSatisfy { $0.1.isDuplicate })
        for (entry, outcome) in others {
            #expect(outcome == .rejected(reason: "bundle_mismatch", detail: rejectionDetail(outcome)), "\(entry.file)")
        }
        #expect(try Ledger.quarantined(directory: ledger.layout.root).count == others.count)
    }

    @Test("re-ingesting is a no-op, also after the ledger is closed and reopened")
    func idempotentAcrossRestarts() throws {
        let dir = TemporaryDirectory()
        let entries = try ingestable().filter { $0.bundleId == Self.bundle }
        var ledger = try makeLedger(dir)
        let first = try ledger.ingest(lines(entries), recordedAt: 1)
        let appended = first.filter { if case .appended = $0 { true } else { false } }.count
        // A repeat answers with the position its first copy was stored at (a copy within the
        // first batch, with that of the copy before it).
        func stored(_ outcomes: [IngestOutcome]) -> [String] {
            outcomes.map { if case .appended(let position) = $0 { position } else if case .duplicate(let position) = $0 { position } else { "rejected" } }
        }
        let again = try ledger.ingest(lines(entries), recordedAt: 2)
        #expect(again.allSatisfy { $0.isDuplicate })
        #expect(stored(again) == stored(first))
        ledger.close()
        ledger = try Ledger(directory: dir.path)
        defer { ledger.close() }
        let afterRestart = try ledger.ingest(lines(entries), recordedAt: 3)
        #expect(afterRestart.allSatisfy { $0.isDuplicate })
        #expect(stored(afterRestart) == stored(first))
        #expect(try LogReader(directory: dir.path + "/log").summary().records == UInt64(appended))
    }

    @Test("the stored evidence rebuilds every signed message byte for byte, in well under 2 KiB per notification")
    func evidenceIsByteExact() throws {
        let dir = TemporaryDirectory()
        let ledger = try makeLedger(dir)
        defer { ledger.close() }
        let entries = try ingestable().filter { $0.bundleId == Self.bundle }
        _ = try ledger.ingest(lines(entries), recordedAt: 1)
        var rebuilt: [[UInt8]] = []
        try LogReader(directory: dir.path + "/log").scan { entry in
            let event = try EventView(UnsafeRawBufferPointer(rebasing: entry.payload[8...]))
            rebuilt.append(try ledger.signedMessage(at: event.evidence.position))
            return true
        }
        let inputs = Set(entries.map(\.jws))
        #expect(rebuilt.count > 100)
        #expect(rebuilt.allSatisfy { inputs.contains($0) })
        let notifications = entries.filter { $0.kind == "notification" }
        let evidenceBytes = try LogReader(directory: dir.path + "/evidence").summary().bytes
        let inputBytes = entries.reduce(0) { $0 + $1.jws.count }
        #expect(evidenceBytes * 3 < inputBytes, "evidence \(evidenceBytes) bytes for \(inputBytes) bytes of input")
        #expect(notifications.count > 100)
    }

    @Test("a forged copy of a known message is rejected as signature_invalid, never counted as a duplicate")
    func forgedCopyOfKnownMessage() throws {
        let dir = TemporaryDirectory()
        let ledger = try makeLedger(dir)
        defer { ledger.close() }
        let entry = try #require(try ingestable().first { $0.bundleId == Self.bundle && $0.kind == "notification" })
        #expect(try ledger.ingest(lines([entry]), recordedAt: 1).first.map { if case .appended = $0 { true } else { false } } == true)
        #expect(try rejectsForgery(of: entry.jws, in: ledger))
    }

    @Test("Apple's altered sample is rejected as signature_invalid and kept in quarantine with its reason")
    func unverifiedSample() throws {
        let dir = TemporaryDirectory()
        let ledger = try makeLedger(dir, bundle: "com.loki-project.loki-messenger")
        defer { ledger.close() }
        let files = try FileManager.default.contentsOfDirectory(atPath: Corpus.unverified).filter { $0.hasSuffix(".jws") }
        #expect(!files.isEmpty)
        for file in files {
            let bytes = Array(try String(contentsOfFile: Corpus.unverified + "/" + file, encoding: .utf8).utf8)
            let outcome = try ledger.ingest([IngestLine(bytes: bytes, line: 7, source: file)], recordedAt: 1)
            #expect(outcome.first.map { if case .rejected("signature_invalid", _) = $0 { true } else { false } } == true)
        }
        let quarantined = try Ledger.quarantined(directory: ledger.layout.root)
        #expect(quarantined.count == files.count)
        #expect(quarantined.allSatisfy { $0.reason == "signature_invalid" && $0.line == 7 })
    }

    @Test("quarantine retry appends what a corrected configuration accepts and resolves it")
    func quarantineRetry() throws {
        let dir = TemporaryDirectory()
        let entries = Array(try ingestable().filter { $0.bundleId == Self.bundle }.prefix(5))
        var ledger = try makeLedger(dir, environments: ["Production"])
        let outcomes = try ledger.ingest(lines(entries), recordedAt: 1)
        #expect(outcomes.allSatisfy { if case .rejected("environment_not_accepted", _) = $0 { true } else { false } })
        // The hint keeps the environments already accepted: `init --environment` replaces the list.
        #expect(outcomes.allSatisfy { if case .rejected(_, let detail) = $0 { detail.contains("`subledger init --environment Production --environment Sandbox`") } else { false } })
        // The same lines rejected again (a file ingested twice) are reported, and kept once.
        #expect(try ledger.ingest(lines(entries), recordedAt: 1).allSatisfy { if case .rejected = $0 { true } else { false } })
        #expect(try Ledger.quarantined(directory: ledger.layout.root).count == 5)
        ledger.close()
        ledger = try makeLedger(dir, environments: ["Production", "Sandbox"])
        defer { ledger.close() }
        #expect(try Ledger.quarantined(directory: ledger.layout.root).count == 5)
        let retried = try ledger.retryQuarantine(recordedAt: 2)
        #expect(retried.allSatisfy { if case .rejected = $0.1 { false } else { true } })
        #expect(try Ledger.quarantined(directory: ledger.layout.root).isEmpty)
        #expect(try LogReader(directory: dir.path + "/log").summary().records > 0)
    }

    @Test("webhook bodies the App Store signed for this app are marked so in the quarantine, as sent: another environment's, and Apple's under a ledger trusting another root; not another app's, a forgery, or a signed body padded or wrapped anew")
    func appStoreSignedRejectionsAreMarked() throws {
        let dir = TemporaryDirectory()
        let ledger = try makeLedger(dir, environments: ["Xcode"])
        defer { ledger.close() }
        let notification = try #require(try ingestable().first { $0.bundleId == Self.bundle && $0.kind == "notification" })
        let other = try #require(try ingestable().first { $0.bundleId != Self.bundle && $0.kind == "notification" })
        var forged = notification.jws
        forged[forged.count - 10] = forged[forged.count - 10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        let body = Array(#"{"signedPayload":""#.utf8) + notification.jws + Array(#""}"#.utf8)
        let bodies = [body, notification.jws, body + Array("   ".utf8), Array(#"{"signedPayload": ""#.utf8) + notification.jws + Array(#"", "x": 1}"#.utf8), other.jws, forged]
        let outcomes = try ledger.ingest(bodies.enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: IngestLine.webhookSource) }, recordedAt: 1)
        #expect(outcomes.map { if case .rejected(let reason, _) = $0 { reason } else { "" } }
            == ["environment_not_accepted", "environment_not_accepted", "environment_not_accepted", "environment_not_accepted", "bundle_mismatch", "signature_invalid"])
        #expect(try Quarantine.entries(in: dir.path + "/quarantine").map(\.signedByAppStore) == [true, true, false, false, false, false])

        let elsewhere = TemporaryDirectory()
        let root = elsewhere.file("test-root.cer")
        try Data(try TestPKI(validity: 1_700_000_000_000...1_900_000_000_000).rootDER).write(to: URL(fileURLWithPath: root))
        _ = try Ledger.initialize(directory: elsewhere.path, bundleId: Self.bundle, appAppleId: nil, environments: ["Sandbox", "Production"], rootFiles: [root], smallBusiness: false, catalogFile: nil)
        let testRooted = try Ledger(directory: elsewhere.path)
        defer { testRooted.close() }
        let untrusted = try testRooted.ingest([notification.jws, other.jws].enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: IngestLine.webhookSource) }, recordedAt: 1)
        #expect(untrusted.allSatisfy { if case .rejected("chain_untrusted", _) = $0 { true } else { false } }, "Apple's messages are not taken under a test root")
        #expect(try Quarantine.entries(in: elsewhere.path + "/quarantine").map(\.signedByAppStore) == [true, false], "Apple's own root vouches for this app's")
    }

    @Test("a bare renewal info from a file or the webhook is refused, any app's: it names none, so it cannot be checked")
    func bareRenewalInfoFromInputRefused() throws {
        let dir = TemporaryDirectory()
        let ledger = try makeLedger(dir, bundle: "com.loki-project.loki-messenger")
        defer { ledger.close() }
        let renewals = try Corpus.entries().filter { $0.kind == "renewal" }
        #expect(renewals.count > 20)
        let outcomes = try ledger.ingest(lines(renewals), recordedAt: 1)
        for outcome in outcomes {
            guard case .rejected("payload_invalid", let detail) = outcome else {
                Issue.record("a bare renewal info was \(outcome)")
                continue
            }
            #expect(detail.contains("names no app") && detail.contains("subledger appstore backfill"))
        }
        #expect(try LogReader(directory: dir.path + "/log").summary().records == 0)
        // Verification comes first, as for every message: a forged one is a forgery.
        #expect(try rejectsForgery(of: renewals[0].jws, in: ledger))
    }

    @Test("a bare renewal info fetched from the App Store Server API is taken, also when retried from quarantine")
    func bareRenewalInfoFromAppStoreTaken() throws {
        let dir = TemporaryDirectory()
        let renewals = Array(try Corpus.entries().filter { $0.kind == "renewal" }.prefix(3))
        var ledger = try makeLedger(dir, environments: ["Xcode"])
        let fetched = renewals.enumerated().map {
            IngestLine(bytes: $1.jws, line: $0 + 1, source: "appstore backfill 1 statuses", takesRenewalInfo: true)
        }
        #expect(try ledger.ingest(fetched, recordedAt: 1).allSatisfy { if case .rejected("environment_not_accepted", _) = $0 { true } else { false } })
        // A file named like the API commands' answers is still a file: its retry refuses the info.
        let named = IngestLine(bytes: try Corpus.entries().filter { $0.kind == "renewal" }[5].jws, line: 1, source: "appstore x.jsonl")
        #expect(try ledger.ingest([named], recordedAt: 1).allSatisfy { if case .rejected("payload_invalid", _) = $0 { true } else { false } })
        ledger.close()
        ledger = try makeLedger(dir, environments: ["Production", "Sandbox"])
        defer { ledger.close() }
        let retried = try ledger.retryQuarantine(recordedAt: 2)
        #expect(retried.count == 4)
        #expect(retried.filter { $0.0.source != "appstore x.jsonl" }.allSatisfy { if case .appended = $0.1 { true } else { false } })
        #expect(retried.filter { $0.0.source == "appstore x.jsonl" }.allSatisfy { if case .rejected("payload_invalid", _) = $0.1 { true } else { false } })
        #expect(try LogReader(directory: dir.path + "/log").summary().records == 3)
    }

    @Test("a webhook body, a bare notification JWS (each also after a byte order mark) and bad lines each get the right outcome")
    func lineFormats() throws {
        let dir = TemporaryDirectory()
        let ledger = try makeLedger(dir)
        defer { ledger.close() }
        let notifications = try ingestable().filter { $0.bundleId == Self.bundle && $0.kind == "notification" }
        let body = Array("{\"signedPayload\": \"\(String(decoding: notifications[0].jws, as: UTF8.self))\"}\r\n".utf8)
        let outcomes = try ledger.ingest([
            IngestLine(bytes: body, line: 1, source: "-"),
            IngestLine(bytes: notifications[1].jws, line: 2, source: "-"),
            IngestLine(bytes: Array("{\"signedPayload\": 12".utf8), line: 3, source: "-"),
            IngestLine(bytes: Array("{\"other\": \"x\"}".utf8), line: 4, source: "-"),
            IngestLine(bytes: Array("hello world".utf8), line: 5, source: "-"),
            // A file saved by a Windows editor starts with a UTF-8 byte order mark.
            IngestLine(bytes: [0xEF, 0xBB, 0xBF] + Array("{\"signedPayload\": \"\(String(decoding: notifications[2].jws, as: UTF8.self))\"}".utf8), line: 6, source: "-"),
            IngestLine(bytes: [0xEF, 0xBB, 0xBF] + notifications[3].jws, line: 7, source: "-"),
        ], recordedAt: 1)
        #expect(outcomes[0] .isDuplicate == false && rejectionReason(outcomes[0]) == nil)
        #expect(rejectionReason(outcomes[1]) == nil)
        #expect(rejectionReason(outcomes[2]) == "malformed_json")
        #expect(rejectionReason(outcomes[3]) == "malformed_json")
        #expect(rejectionReason(outcomes[4]) == "not_jws")
        #expect(outcomes[5] .isDuplicate == false && rejectionReason(outcomes[5]) == nil)
        #expect(outcomes[6] .isDuplicate == false && rejectionReason(outcomes[6]) == nil)
    }

    @Test("the early-2022 notification without signedDate is verified at its nested transaction's signedDate")
    func notificationWithoutSignedDate() throws {
        let dir = TemporaryDirectory()
        let ledger = try makeLedger(dir, bundle: "com.audaos.audarecorder")
        defer { ledger.close() }
        let entry = try #require(try Corpus.entries().first { $0.file.contains("469bf30e") })
        let outcome = try ledger.ingest(lines([entry]), recordedAt: 1)
        #expect(rejectionReason(outcome[0]) == nil, "\(outcome[0])")
    }
}

func rejectionReason(_ outcome: IngestOutcome) -> String? {
    if case .rejected(let reason, _) = outcome { return reason }
    return nil
}

func rejectionDetail(_ outcome: IngestOutcome) -> String {
    if case .rejected(_, let detail) = outcome { return detail }
    return ""
}
