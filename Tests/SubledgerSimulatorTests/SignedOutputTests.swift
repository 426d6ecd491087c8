import Foundation
import Testing
import SubledgerAppStore
import SubledgerJWS
import SubledgerSimulator

@Suite("Signed output")
struct SignedOutputTests {
    @Test("every notification and its nested transaction and renewal info verify against root.cer at their signedDate")
    func verifies() throws {
        let workload = try Workload.run(.init(customers: 50, months: 6, seed: 3))
        let verifier = SignedDataVerifier(trustedRoots: [workload.root])
        let notifications = try workload.notifications()
        #expect(notifications.count == workload.summary.notifications)
        var nested = 0
        for delivered in notifications {
            try verifier.verify(delivered.outer, at: delivered.signedDate)
            if let jws = delivered.transactionJWS {
                try verifier.verify(jws, at: try #require(delivered.transaction?.signedDate))
                nested += 1
            }
            if let jws = delivered.renewalJWS {
                try verifier.verify(jws, at: try #require(delivered.renewal?.signedDate))
                nested += 1
            }
        }
        #expect(nested > notifications.count)
    }

    @Test("a different root rejects the workload")
    func otherRoot() throws {
        let workload = try Workload.run(.init(customers: 5, months: 2, seed: 3))
        let other = try TestPKI(validity: 0...4_000_000_000_000)
        let verifier = SignedDataVerifier(trustedRoots: [other.root])
        let first = try #require(try workload.notifications().first)
        #expect(throws: VerificationError.self) { try verifier.verify(first.outer, at: first.signedDate) }
    }

    @Test("nested payloads agree with their notification and carry Apple's fields")
    func consistent() throws {
        let workload = try Workload.run(.init(customers: 50, months: 6, seed: 4))
        let start = TestCalendar.millis(day: "2026-01-01"), end = TestCalendar.millis(day: "2026-01-01", plusMonths: 6)
        var uuids = Set<String>()
        for delivered in try workload.notifications() {
            let notification = delivered.notification
            let data = try #require(notification.data)
            #expect(notification.version == "2.0")
            #expect(uuids.insert(try #require(notification.notificationUUID)).inserted)
            #expect((start..<end).contains(delivered.signedDate))
            #expect(data.bundleId == "com.example.subledger")
            #expect(data.appAppleId == 1_234_567_890)
            #expect(data.environment == .production)
            #expect(data.bundleVersion != nil)

            let transaction = try #require(delivered.transaction)
            #expect(transaction.signedDate == delivered.signedDate)
            #expect(transaction.bundleId == data.bundleId)
            #expect(transaction.environment == .production)
            #expect(transaction.purchaseDate! <= delivered.signedDate)
            #expect(["USA", "DEU", "JPN"].contains(transaction.storefront))
            if let token = transaction.appAccountToken {
                #expect(UUID(uuidString: token) != nil && token == token.lowercased())
            }
            if transaction.type == .autoRenewableSubscription {
                let renewal = try #require(delivered.renewal)
                let status = try #require(data.status)
                #expect((1...5).contains(status.rawValue))
                #expect(renewal.signedDate == delivered.signedDate)
                #expect(renewal.originalTransactionId == transaction.originalTransactionId)
                #expect(renewal.productId == transaction.productId)
                #expect(renewal.currency == transaction.currency)
                #expect(renewal.appAccountToken == transaction.appAccountToken)
                #expect(transaction.expiresDate! > transaction.purchaseDate!)
                if transaction.billingPlanType == .monthly {
                    let commitment = try #require(transaction.commitmentInfo)
                    #expect((1...12).contains(commitment.billingPeriodNumber!))
                    #expect(commitment.totalBillingPeriods == 12)
                    #expect(commitment.commitmentPrice == transaction.price! * 12)
                    #expect(commitment.commitmentExpiresDate! >= transaction.expiresDate!)
                }
            } else {
                #expect(delivered.renewal == nil)
                #expect(data.status == nil)
                #expect(transaction.originalTransactionId == transaction.transactionId)
            }
            if notification.notificationType == .revoke {
                #expect(transaction.inAppOwnershipType == .familyShared)
                #expect(transaction.revocationType == .familyRevoke)
                #expect(data.status == .revoked)
            }
            if notification.notificationType == .refund {
                #expect(transaction.revocationDate == delivered.signedDate)
                #expect(transaction.revocationType == .refundFull || transaction.revocationType == .refundProrated)
            }
        }
    }

    @Test("root.cer and config.json describe the app")
    func files() throws {
        let workload = try Workload.run(.init(customers: 3, months: 1, seed: 1))
        #expect(workload.root.subjectName.commonName == "Apple Root CA - G3")
        let config = workload.config
        #expect(config["bundleId"] as? String == "com.example.subledger")
        #expect(config["appAppleId"] as? Int == 1_234_567_890)
        #expect(config["environment"] as? String == "Production")
        #expect(workload.files == ["config.json", "expected.json", "notifications.jsonl", "root.cer"])
    }
}
