import Foundation
import SubledgerAppStore
import SubledgerJWS
import SubledgerLog
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

/// RESCIND_CONSENT and EXTERNAL_PURCHASE_TOKEN carry no `data`: what they say of their app is
/// in `appData` or the token, and is checked as strictly as any notification's.
@Suite("Notifications without data")
struct NotificationsWithoutDataTests {
    static let start = AppStoreFixtures.defaultPurchaseDate

    enum Variant: String, CaseIterable, CustomTestStringConvertible {
        case consentOfThisApp, consentOfAnotherBundle, consentFromSandbox, tokenOfThisApp, sandboxToken, tokenOfAnotherAppAppleId
        var testDescription: String { rawValue }

        func notification(_ fixtures: AppStoreFixtures) -> SignedNotification {
            switch self {
            case .consentOfThisApp, .consentOfAnotherBundle, .consentFromSandbox:
                var notification = fixtures.payload(.rescindConsent, signedDate: start)
                var app = NotificationAppData()
                app.bundleId = self == .consentOfAnotherBundle ? "com.other.app" : fixtures.bundleId
                app.appAppleId = fixtures.appAppleId
                app.environment = self == .consentFromSandbox ? .sandbox : .production
                notification.appData = app
                return fixtures.sign(notification)
            case .tokenOfThisApp, .sandboxToken, .tokenOfAnotherAppAppleId:
                var notification = fixtures.payload(.externalPurchaseToken, subtype: .unreported, signedDate: start)
                var token = ExternalPurchaseToken()
                token.externalPurchaseId = self == .sandboxToken ? "SANDBOX_0001" : "0001"
                token.tokenCreationDate = start
                token.bundleId = fixtures.bundleId
                token.appAppleId = self == .tokenOfAnotherAppAppleId ? 999 : fixtures.appAppleId
                notification.externalPurchaseToken = token
                return fixtures.sign(notification)
            }
        }

        var rejection: String? {
            switch self {
            case .consentOfThisApp, .tokenOfThisApp: nil
            case .consentOfAnotherBundle: "bundle_mismatch"
            case .consentFromSandbox, .sandboxToken: "environment_not_accepted"
            case .tokenOfAnotherAppAppleId: "app_apple_id_mismatch"
            }
        }
    }

    @Test("another app's, or another environment's, is rejected with the reason a notification with data gets; this app's is appended", arguments: Variant.allCases)
    func checkedAsAnyNotification(_ variant: Variant) throws {
        let test = try TestPKILedger(environments: ["Production"])
        let (fixtures, ledger) = (test.fixtures(.production), test.ledger)
        defer { ledger.close() }
        let outcome = try #require(try ledger.ingest([IngestLine(bytes: variant.notification(fixtures).webhookBody, line: 1, source: "test")], recordedAt: Self.start).first)
        if let reason = variant.rejection {
            guard case .rejected(reason, _) = outcome else {
                Issue.record("\(variant): \(outcome), expected \(reason)")
                return
            }
            #expect(try LogReader(directory: ledger.layout.log).summary().records == 0, "nothing stored")
        } else {
            guard case .appended = outcome else {
                Issue.record("\(variant): \(outcome)")
                return
            }
        }
    }
}
