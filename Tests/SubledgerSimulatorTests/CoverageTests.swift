import Foundation
import Testing
import SubledgerAppStore
import SubledgerSimulator

@Suite("Coverage")
struct CoverageTests {
    @Test("a year of a few hundred customers shows every simulated lifecycle")
    func everyLifecycle() throws {
        let workload = try SharedWorkloads.medium.get()
        let notifications = try SharedWorkloads.mediumNotifications.get()
        var types: [String: Int] = [:]
        for delivered in notifications { types[delivered.typeKey, default: 0] += 1 }
        let required = [
            "SUBSCRIBED/INITIAL_BUY", "SUBSCRIBED/RESUBSCRIBE", "DID_RENEW", "DID_RENEW/BILLING_RECOVERY",
            "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED",
            "EXPIRED/VOLUNTARY", "EXPIRED/BILLING_RETRY", "EXPIRED/PRICE_INCREASE",
            "DID_FAIL_TO_RENEW/GRACE_PERIOD", "GRACE_PERIOD_EXPIRED",
            "REFUND", "REFUND_REVERSED", "REFUND_DECLINED", "CONSUMPTION_REQUEST",
            "PRICE_INCREASE/PENDING", "PRICE_INCREASE/ACCEPTED",
            "DID_CHANGE_RENEWAL_PREF/UPGRADE", "DID_CHANGE_RENEWAL_PREF/DOWNGRADE",
            "OFFER_REDEEMED", "RENEWAL_EXTENDED", "REVOKE", "ONE_TIME_CHARGE",
        ]
        for key in required {
            #expect(types[key, default: 0] > 0, "no \(key)")
        }
        #expect(Set(types.keys).subtracting(required).isSubset(of: ["EXPIRED/PRODUCT_NOT_FOR_SALE"]))

        let transactions = notifications.compactMap(\.transaction)
        func some(_ what: String, _ predicate: (TransactionPayload) -> Bool) {
            let found = transactions.contains(where: predicate)
            #expect(found, "no \(what)")
        }
        some("free trial") { $0.offerType == .introductory && $0.offerDiscountType == .freeTrial && $0.price == 0 }
        some("pay-as-you-go intro") { $0.offerType == .introductory && $0.offerDiscountType == .payAsYouGo }
        some("pay-up-front intro") { $0.offerType == .introductory && $0.offerDiscountType == .payUpFront }
        some("offer code renewal") { $0.offerType == .offerCode }
        some("win-back offer") { $0.offerType == .winBack }
        some("family-shared copy") { $0.inAppOwnershipType == .familyShared }
        some("full refund") { $0.revocationType == .refundFull }
        some("prorated refund") { $0.revocationType == .refundProrated && ($0.revocationPercentage ?? 0) > 0 }
        some("consumable") { $0.type == .consumable && $0.productId == "coins.100" }
        some("non-renewing subscription") { $0.type == .nonRenewingSubscription && $0.productId == "pass.30days" }
        some("yearly upfront") { $0.productId == "pro.yearly" && $0.billingPlanType == .billedUpfront }
        some("twelfth commitment payment") { $0.billingPlanType == .monthly && $0.commitmentInfo?.billingPeriodNumber == 12 }
        some("subscription without appAccountToken") { $0.appAccountToken == nil && $0.inAppOwnershipType == .purchased }
        for storefront in ["USA", "DEU", "JPN"] {
            some("storefront \(storefront)") { $0.storefront == storefront }
        }
        some("yen amounts in milliunits") { $0.currency == "JPY" && ($0.price ?? 0) % 1000 == 0 && ($0.price ?? 0) >= 100_000 }

        // An abandoned trial: EXPIRED / VOLUNTARY about a free-trial transaction.
        #expect(notifications.contains { $0.typeKey == "EXPIRED/VOLUNTARY" && $0.transaction?.offerDiscountType == .freeTrial })
        // Renewal info of a commitment describes how it renews.
        #expect(notifications.contains {
            $0.renewal?.renewalBillingPlanType == .monthly && $0.renewal?.commitmentInfo?.commitmentRenewalPrice != nil
        })

        let churn = workload.churnRows
        #expect(churn.reduce(0) { $0 + ($1["commitmentsCompleted"] as! Int) } > 0)
        #expect(churn.reduce(0) { $0 + ($1["commitmentsDefaulted"] as! Int) } > 0)
        #expect(churn.reduce(0) { $0 + ($1["reactivated"] as! Int) } > 0)
        let reasons = churn.map { $0["byReason"] as! [String: Int] }
        for reason in ["voluntary", "billing_error", "price_increase", "refund"] {
            #expect(reasons.reduce(0) { $0 + $1[reason]! } > 0, "no churn for \(reason)")
        }
    }
}
