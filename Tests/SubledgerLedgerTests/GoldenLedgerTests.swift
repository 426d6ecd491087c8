import Foundation
import SubledgerAppStore
import SubledgerEvents
import SubledgerCrypto
import SubledgerJWS
import SubledgerLog
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

/// A ledger directory written by version 1 (log, evidence, configuration, test root), committed
/// under `Golden/v1`. Every later version must read it identically: the same events, decoded to
/// the values below, and the same signed evidence, which still verifies with the committed root.
@Suite("Golden v1 ledger")
struct GoldenLedgerTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Golden/v1").path

    /// (type, notificationType, subtype, transactionId, price, effectiveAt) of each event, in log order.
    static let expected: [(EventType, String?, String?, String?, Int64?, Int64)] = [
        (.subscriptionStarted, "SUBSCRIBED", "INITIAL_BUY", "2000000000000001", 9990, 1_767_225_600_000),
        (.renewed, "DID_RENEW", nil, "2000000000000002", 9990, 1_769_904_000_000),
        (.renewalStatusChanged, "DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", "2000000000000002", 9990, 1_770_000_000_000),
        (.commitmentPeriodBilled, "DID_RENEW", nil, "2000000000000012", 12990, 1_769_904_000_000),
        (.refunded, "REFUND", nil, "2000000000000002", 9990, 1_770_500_000_000),
        (.test, "TEST", nil, nil, nil, 1_770_600_000_000),
        (.transactionBackfilled, nil, nil, "2000000000000099", 1990, 1_767_300_000_000),
    ]

    @Test("the committed v1 log decodes to the same events, and its evidence rebuilds and verifies")
    func readsGoldenLedger() throws {
        var events: [Event] = []
        try LogReader(directory: Self.directory + "/log").scan { entry in
            #expect(entry.kind == Ledger.eventKind)
            events.append(try EventCodec.decode(UnsafeRawBufferPointer(rebasing: entry.payload[8...])))
            return true
        }
        #expect(events.count == Self.expected.count)
        for (event, expected) in zip(events, Self.expected) {
            #expect(event.type == expected.0)
            #expect(event.notificationType == expected.1)
            #expect(event.subtype == expected.2)
            #expect(event.transaction?.transactionId == expected.3)
            #expect(event.transaction?.price == expected.4)
            #expect(event.effectiveAt == expected.5)
        }
        #expect(events[3].transaction?.commitment?.billingPeriodNumber == 2)
        #expect(events[3].transaction?.commitment?.totalBillingPeriods == 12)

        let root = try Certificate(derOrPEM: Array(try Data(contentsOf: URL(fileURLWithPath: Self.directory + "/roots/root-1.cer"))))
        let verifier = SignedDataVerifier(trustedRoots: [root])
        for event in events {
            let message = try Ledger.signedMessage(at: event.evidence.position, evidenceDirectory: Self.directory + "/evidence")
            try verifier.verify(try CompactJWS(message), at: event.effectiveAt)
        }
        #expect(try LogReader(directory: Self.directory + "/log").verify().ok)
        #expect(try LogReader(directory: Self.directory + "/evidence").verify().ok)
    }

    /// Writes `Golden/v1` (run once, with SUBLEDGER_WRITE_GOLDEN=1; the result is committed).
    @Test("write the golden v1 ledger", .enabled(if: ProcessInfo.processInfo.environment["SUBLEDGER_WRITE_GOLDEN"] == "1"))
    func writeGoldenLedger() throws {
        try? FileManager.default.removeItem(atPath: Self.directory)
        let day: Int64 = 86_400_000
        let start: Int64 = 1_767_225_600_000
        let pki = try TestPKI(validity: (start - day)...(start + 3650 * day))
        let fixtures = AppStoreFixtures(pki: pki, environment: .production)
        let rootFile = NSTemporaryDirectory() + "golden-root.cer"
        try Data(pki.rootDER).write(to: URL(fileURLWithPath: rootFile))
        _ = try Ledger.initialize(directory: Self.directory, bundleId: fixtures.bundleId, appAppleId: fixtures.appAppleId, environments: ["Production"], rootFiles: [rootFile], smallBusiness: false, catalogFile: nil)

        let first = fixtures.transaction(transactionId: "2000000000000001", purchaseDate: start)
        var second = fixtures.transaction(transactionId: "2000000000000002", originalTransactionId: "2000000000000001", purchaseDate: start + 31 * day)
        var commitment = fixtures.transaction(transactionId: "2000000000000012", originalTransactionId: "2000000000000011", productId: "com.example.subledger.yearly.monthly", purchaseDate: start + 31 * day, price: 12990)
        commitment.billingPlanType = .monthly
        commitment.commitmentInfo = TransactionCommitmentInfo()
        commitment.commitmentInfo?.billingPeriodNumber = 2
        commitment.commitmentInfo?.totalBillingPeriods = 12
        commitment.commitmentInfo?.commitmentExpiresDate = start + 365 * day
        commitment.commitmentInfo?.commitmentPrice = 155_880
        var refunded = second
        refunded.revocationDate = 1_770_500_000_000
        refunded.revocationReason = RevocationReason(rawValue: 0)
        refunded.signedDate = 1_770_500_000_000
        second.signedDate = start + 31 * day
        var backfill = fixtures.transaction(transactionId: "2000000000000099", productId: "com.example.subledger.coins", type: .consumable, purchaseDate: 1_767_300_000_000, price: 1990)
        backfill.signedDate = 1_767_300_000_000

        var test = fixtures.payload(.test, signedDate: 1_770_600_000_000, notificationUUID: "00000000-0000-4000-8000-000000000006")
        test.data = nil
        let lines: [[UInt8]] = [
            fixtures.notification(.subscribed, subtype: .initialBuy, transaction: first, renewal: fixtures.renewalInfo(for: first), notificationUUID: "00000000-0000-4000-8000-000000000001").webhookBody,
            fixtures.notification(.didRenew, transaction: second, renewal: fixtures.renewalInfo(for: second), notificationUUID: "00000000-0000-4000-8000-000000000002").webhookBody,
            fixtures.notification(.didChangeRenewalStatus, subtype: .autoRenewDisabled, transaction: second, renewal: fixtures.renewalInfo(for: second, autoRenewStatus: .off, signedDate: 1_770_000_000_000), signedDate: 1_770_000_000_000, notificationUUID: "00000000-0000-4000-8000-000000000003").webhookBody,
            fixtures.notification(.didRenew, transaction: commitment, renewal: fixtures.renewalInfo(for: commitment), notificationUUID: "00000000-0000-4000-8000-000000000004").webhookBody,
            fixtures.notification(.refund, transaction: refunded, notificationUUID: "00000000-0000-4000-8000-000000000005").webhookBody,
            fixtures.sign(test).webhookBody,
            Array(fixtures.signedTransactionInfo(backfill).utf8),
        ]
        let ledger = try Ledger(directory: Self.directory)
        let outcomes = try ledger.ingest(lines.enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: "golden") }, recordedAt: 1_770_700_000_000)
        ledger.close()
        #expect(outcomes.allSatisfy { if case .appended = $0 { true } else { false } })
        for name in ["quarantine", "log/LOCK", "evidence/LOCK", "quarantine/LOCK"] { try? FileManager.default.removeItem(atPath: Self.directory + "/" + name) }
    }
}
