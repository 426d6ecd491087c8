import SubledgerAppStore
import SubledgerJWS
import SubledgerLog
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

/// A signed message that leaves out the app or environment it is for is refused as one naming
/// another would be, as Apple's libraries refuse it: signed by Apple, it may still be another
/// app's, or from an environment the ledger does not take (2021's StoreKit 2 Sandbox
/// transactions named none), and stored it would entitle its customer.
@Suite("Messages that name no app")
struct MessagesNamingNoAppTests {
    static let start = AppStoreFixtures.defaultPurchaseDate

    enum Variant: String, CaseIterable, CustomTestStringConvertible {
        case complete, dataWithoutBundleId, dataWithoutEnvironment, productionDataWithoutAppAppleId, noContainerAtAll
        case nestedTransactionWithoutBundleId, nestedTransactionWithoutEnvironment, nestedRenewalFromSandbox, nestedRenewalWithoutEnvironment
        case bareTransactionWithoutEnvironment, bareTransactionWithoutBundleId
        var testDescription: String { rawValue }

        func line(_ fixtures: AppStoreFixtures) -> [UInt8] {
            var transaction = fixtures.transaction()
            var renewal = fixtures.renewalInfo(for: transaction)
            switch self {
            case .bareTransactionWithoutEnvironment, .bareTransactionWithoutBundleId:
                if self == .bareTransactionWithoutEnvironment { transaction.environment = nil } else { transaction.bundleId = nil }
                return Array(fixtures.signedTransactionInfo(transaction).utf8)
            case .nestedTransactionWithoutBundleId: transaction.bundleId = nil
            case .nestedTransactionWithoutEnvironment: transaction.environment = nil
            case .nestedRenewalFromSandbox: renewal.environment = .sandbox
            case .nestedRenewalWithoutEnvironment: renewal.environment = nil
            default: break
            }
            var notification = fixtures.payload(.subscribed, subtype: .initialBuy, signedDate: start)
            notification.data = fixtures.data(transaction: transaction, renewal: renewal)
            switch self {
            case .dataWithoutBundleId: notification.data?.bundleId = nil
            case .dataWithoutEnvironment:
                // Else the nested payloads' environment stands in for it.
                notification.data = fixtures.data(transaction: nil, renewal: nil)
                notification.data?.environment = nil
            case .productionDataWithoutAppAppleId: notification.data?.appAppleId = nil
            case .noContainerAtAll: notification.data = nil
            default: break
            }
            return fixtures.sign(notification).webhookBody
        }

        var rejection: String? {
            switch self {
            case .complete: nil
            case .dataWithoutBundleId, .noContainerAtAll, .nestedTransactionWithoutBundleId, .bareTransactionWithoutBundleId: "bundle_mismatch"
            case .dataWithoutEnvironment, .nestedTransactionWithoutEnvironment, .nestedRenewalFromSandbox, .nestedRenewalWithoutEnvironment, .bareTransactionWithoutEnvironment:
                "environment_not_accepted"
            case .productionDataWithoutAppAppleId: "app_apple_id_mismatch"
            }
        }
    }

    @Test("a missing bundleId, environment or (in Production, the ledger knowing its own) appAppleId is refused with the reason a wrong one gets, and nothing is stored", arguments: Variant.allCases)
    func missingIsRefusedAsWrong(_ variant: Variant) throws {
        let test = try TestPKILedger(environments: ["Production"])
        let (fixtures, ledger) = (test.fixtures(.production), test.ledger)
        defer { ledger.close() }
        let outcome = try #require(try ledger.ingest([IngestLine(bytes: variant.line(fixtures), line: 1, source: "test")], recordedAt: Self.start).first)
        if let reason = variant.rejection {
            guard case .rejected(reason, let detail) = outcome else {
                Issue.record("\(variant): \(outcome), expected \(reason)")
                return
            }
            #expect(detail.contains(variant == .noContainerAtAll ? "quarantine retry" : variant == .nestedRenewalFromSandbox ? "Sandbox" : "names no"), "\(detail)")
            #expect(try LogReader(directory: ledger.layout.log).summary().records == 0, "nothing stored")
        } else {
            guard case .appended = outcome else {
                Issue.record("\(variant): \(outcome)")
                return
            }
        }
    }

    @Test("events --reverify takes a message an earlier version stored without its app or environment: it checks what the evidence proves, not what intake requires today", arguments: [Variant.dataWithoutBundleId, .bareTransactionWithoutEnvironment, .productionDataWithoutAppAppleId])
    func reverificationTakesWhatWasStored(_ variant: Variant) throws {
        let test = try TestPKILedger(environments: ["Production"])
        let fixtures = test.fixtures(.production)
        defer { test.ledger.close() }
        var preparer = MessagePreparer(configuration: test.ledger.configuration, verifier: SignedDataVerifier(trustedRoots: [test.pki.root]))
        let line = IngestLine(bytes: variant.line(fixtures), line: 1, source: "test")
        guard case .failure = preparer.prepare(line) else {
            Issue.record("\(variant) taken at intake")
            return
        }
        preparer.requiresNamedApp = false
        guard case .success = preparer.prepare(line) else {
            Issue.record("\(variant) refused on reverification")
            return
        }
    }
}
