import SubledgerEvents

/// The events in `Golden/events-v1.bin`, written out value by value. The file was encoded from
/// them once (see `GoldenFileTests.writeGoldenFile`); from then on the bytes are the reference
/// and these values the expectation: a codec change that misreads v1 records fails the test.
///
/// One event of every type, with varied optional fields, unknown Apple values, identifiers
/// that are and are not numbers, UUIDs in both cases and non-ASCII text.
enum GoldenEvents {
    static let all: [Event] = [
        Event(
            type: .subscriptionStarted, effectiveAt: 1_767_225_600_000,
            evidence: EvidenceRef(position: 0, length: 6_120),
            notificationUUID: "002e14d5-51f5-4503-b5a8-c3a1af68eb20", notificationType: "SUBSCRIBED",
            subtype: "INITIAL_BUY", environment: .production, status: 1,
            transaction: TransactionFacts(
                transactionId: "510000000000001", originalTransactionId: "510000000000001",
                webOrderLineItemId: "510000000000101", productId: "pro.monthly",
                subscriptionGroupIdentifier: "21000001",
                type: "Auto-Renewable Subscription", purchaseDate: 1_767_225_598_000,
                originalPurchaseDate: 1_767_225_598_000, expiresDate: 1_767_830_398_000, signedDate: 1_767_225_599_500,
                price: 0, currency: "USD", storefront: "USA", offerType: 1, offerDiscountType: "FREE_TRIAL",
                offerPeriod: "P1W", ownership: "PURCHASED", appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138",
                transactionReason: "PURCHASE", quantity: 1, billingPlanType: "BILLED_UPFRONT"),
            renewal: RenewalFacts(
                originalTransactionId: "510000000000001", productId: "pro.monthly", autoRenewProductId: "pro.monthly",
                autoRenewStatus: 1, renewalPrice: 9_990, currency: "USD", signedDate: 1_767_225_599_500,
                renewalDate: 1_767_830_398_000, recentSubscriptionStartDate: 1_767_225_598_000)),
        Event(
            type: .resubscribed, effectiveAt: 1_769_904_000_000, evidence: EvidenceRef(position: 6_120, length: 5_980),
            notificationUUID: "0b1c2d3e-4f50-6172-8394-a5b6c7d8e9f0", notificationType: "SUBSCRIBED",
            subtype: "RESUBSCRIBE", environment: .sandbox, status: 1,
            transaction: TransactionFacts(
                transactionId: "2000000500000002", originalTransactionId: "2000000400000001",
                productId: "pro.yearly", type: "Auto-Renewable Subscription", purchaseDate: 1_769_903_990_000,
                expiresDate: 1_801_439_990_000, price: 99_990, currency: "EUR", storefront: "DEU",
                ownership: "PURCHASED", transactionReason: "PURCHASE")),
        Event(
            type: .renewed, effectiveAt: 1_759_302_518_835, evidence: EvidenceRef(position: 12_100, length: 7_412),
            notificationUUID: "1a7cdc3d-9360-49c3-ae37-0423e4c6e7c7", notificationType: "DID_RENEW",
            environment: .sandbox, status: 1,
            transaction: TransactionFacts(
                transactionId: "2000001024998954", originalTransactionId: "2000001024993299",
                webOrderLineItemId: "2000000113755461", productId: "com.getsession.org.pro_sub",
                subscriptionGroupIdentifier: "21752814", type: "Auto-Renewable Subscription",
                purchaseDate: 1_759_302_552_000, originalPurchaseDate: 1_759_301_833_000,
                expiresDate: 1_759_302_732_000, signedDate: 1_759_302_518_835, price: 1_990, currency: "AUD",
                storefront: "AUS", ownership: "PURCHASED", transactionReason: "RENEWAL", quantity: 1),
            renewal: RenewalFacts(
                originalTransactionId: "2000001024993299", productId: "com.getsession.org.pro_sub",
                autoRenewProductId: "com.getsession.org.pro_sub", autoRenewStatus: 1, renewalPrice: 1_990,
                currency: "AUD", signedDate: 1_759_302_518_835, renewalDate: 1_759_302_732_000,
                recentSubscriptionStartDate: 1_759_301_832_000)),
        Event(
            type: .commitmentPeriodBilled, effectiveAt: 1_772_323_200_000,
            evidence: EvidenceRef(position: 19_512, length: 7_800),
            notificationUUID: "3c4d5e6f-7081-4293-a4b5-c6d7e8f90a1b", notificationType: "DID_RENEW",
            environment: .production, status: 1,
            transaction: TransactionFacts(
                transactionId: "510000000000303", originalTransactionId: "510000000000300",
                webOrderLineItemId: "510000000000403", productId: "pro.yearly.commit",
                subscriptionGroupIdentifier: "21000001", type: "Auto-Renewable Subscription",
                purchaseDate: 1_772_323_199_000, originalPurchaseDate: 1_767_225_600_000,
                expiresDate: 1_775_001_599_000, signedDate: 1_772_323_200_000, price: 10_990, currency: "USD",
                storefront: "USA", ownership: "PURCHASED", transactionReason: "RENEWAL", quantity: 1,
                billingPlanType: "MONTHLY",
                commitment: TransactionFacts.Commitment(
                    billingPeriodNumber: 3, totalBillingPeriods: 12, commitmentExpiresDate: 1_798_761_600_000,
                    commitmentPrice: 131_880)),
            renewal: RenewalFacts(
                originalTransactionId: "510000000000300", productId: "pro.yearly.commit",
                autoRenewProductId: "pro.yearly.commit", autoRenewStatus: 1, renewalPrice: 10_990, currency: "USD",
                signedDate: 1_772_323_200_000, renewalDate: 1_775_001_599_000, renewalBillingPlanType: "MONTHLY",
                commitment: RenewalFacts.CommitmentRenewal(
                    commitmentAutoRenewProductId: "pro.yearly.commit", commitmentAutoRenewStatus: 1,
                    commitmentRenewalBillingPlanType: "MONTHLY", commitmentRenewalDate: 1_798_761_600_000,
                    commitmentRenewalPrice: 131_880))),
        Event(
            type: .renewalFailed, effectiveAt: 1_772_323_260_000,
            evidence: EvidenceRef(position: 27_312, length: 6_900),
            notificationUUID: "4d5e6f70-8192-43a4-b5c6-d7e8f90a1b2c", notificationType: "DID_FAIL_TO_RENEW",
            subtype: "GRACE_PERIOD", environment: .production, status: 4,
            transaction: TransactionFacts(
                transactionId: "510000000000501", originalTransactionId: "510000000000500",
                productId: "pro.monthly", expiresDate: 1_772_323_200_000, price: 9_990, currency: "USD"),
            renewal: RenewalFacts(
                originalTransactionId: "510000000000500", productId: "pro.monthly", autoRenewProductId: "pro.monthly",
                autoRenewStatus: 1, expirationIntent: 2, isInBillingRetryPeriod: true,
                gracePeriodExpiresDate: 1_773_014_400_000, renewalPrice: 9_990, currency: "USD")),
        Event(
            type: .gracePeriodExpired, effectiveAt: 1_773_014_400_500,
            evidence: EvidenceRef(position: 34_212, length: 6_100),
            notificationUUID: "5e6f7081-92a3-44b5-86c7-e8f90a1b2c3d", notificationType: "GRACE_PERIOD_EXPIRED",
            environment: .production, status: 3,
            renewal: RenewalFacts(
                originalTransactionId: "510000000000500", autoRenewStatus: 1, expirationIntent: 2,
                isInBillingRetryPeriod: true, gracePeriodExpiresDate: 1_773_014_400_000)),
        Event(
            type: .expired, effectiveAt: 1_775_001_600_000, evidence: EvidenceRef(position: 40_312, length: 6_050),
            notificationUUID: "6f708192-a3b4-45c6-97d8-f90a1b2c3d4e", notificationType: "EXPIRED", subtype: "VOLUNTARY",
            environment: .production, status: 2,
            transaction: TransactionFacts(
                transactionId: "510000000000601", originalTransactionId: "510000000000600", productId: "pro.monthly",
                expiresDate: 1_775_001_599_000),
            renewal: RenewalFacts(
                originalTransactionId: "510000000000600", autoRenewStatus: 0, expirationIntent: 1,
                isInBillingRetryPeriod: false)),
        Event(
            type: .renewalStatusChanged, effectiveAt: 1_770_000_000_000,
            evidence: EvidenceRef(position: 46_362, length: 5_900),
            notificationUUID: "708192a3-b4c5-46d7-a8e9-0a1b2c3d4e5f", notificationType: "DID_CHANGE_RENEWAL_STATUS",
            subtype: "AUTO_RENEW_DISABLED", environment: .sandbox, status: 1,
            renewal: RenewalFacts(originalTransactionId: "2000000400000001", autoRenewStatus: 0)),
        Event(
            type: .renewalPreferenceChanged, effectiveAt: 1_770_100_000_000,
            evidence: EvidenceRef(position: 52_262, length: 5_950),
            notificationUUID: "8192a3b4-c5d6-47e8-b9f0-1a2b3c4d5e6f", notificationType: "DID_CHANGE_RENEWAL_PREF",
            subtype: "DOWNGRADE", environment: .production, status: 1,
            renewal: RenewalFacts(
                originalTransactionId: "510000000000700", productId: "pro.yearly", autoRenewProductId: "basic.yearly",
                autoRenewStatus: 1, renewalPrice: 49_990, currency: "GBP")),
        Event(
            type: .priceIncrease, effectiveAt: 1_770_200_000_000,
            evidence: EvidenceRef(position: 58_212, length: 6_010),
            notificationUUID: "92a3b4c5-d6e7-48f9-8a0b-1c2d3e4f5a6b", notificationType: "PRICE_INCREASE",
            subtype: "PENDING", environment: .production, status: 1,
            renewal: RenewalFacts(
                originalTransactionId: "510000000000800", autoRenewStatus: 1, priceIncreaseStatus: 0,
                renewalPrice: 12_990, currency: "JPY")),
        Event(
            type: .refunded, effectiveAt: 1_770_300_000_000, evidence: EvidenceRef(position: 64_222, length: 6_200),
            notificationUUID: "a3b4c5d6-e7f8-49a0-9b1c-2d3e4f5a6b7c", notificationType: "REFUND",
            environment: .production, status: 5,
            transaction: TransactionFacts(
                transactionId: "510000000000901", originalTransactionId: "510000000000900", productId: "pro.yearly",
                purchaseDate: 1_767_225_600_000, price: 99_990, currency: "USD", ownership: "PURCHASED",
                revocationDate: 1_770_299_000_000, revocationReason: 0, revocationType: "REFUND_PRORATED",
                revocationPercentage: 50_000)),
        Event(
            type: .refundDeclined, effectiveAt: 1_770_400_000_000,
            evidence: EvidenceRef(position: 70_422, length: 5_800),
            notificationUUID: "b4c5d6e7-f809-4ab1-8c2d-3e4f5a6b7c8d", notificationType: "REFUND_DECLINED",
            environment: .production,
            transaction: TransactionFacts(transactionId: "510000000001001", originalTransactionId: "510000000001000")),
        Event(
            type: .refundReversed, effectiveAt: 1_770_500_000_000,
            evidence: EvidenceRef(position: 76_222, length: 6_150),
            notificationUUID: "c5d6e7f8-091a-4bc2-9d3e-4f5a6b7c8d9e", notificationType: "REFUND_REVERSED",
            environment: .production, status: 1,
            transaction: TransactionFacts(
                transactionId: "510000000000901", originalTransactionId: "510000000000900", price: 99_990,
                currency: "USD")),
        Event(
            type: .revoked, effectiveAt: 1_770_600_000_000, evidence: EvidenceRef(position: 82_372, length: 6_300),
            notificationUUID: "d6e7f809-1a2b-4cd3-8e4f-5a6b7c8d9eaf", notificationType: "REVOKE",
            environment: .production, status: 5,
            transaction: TransactionFacts(
                transactionId: "510000000001101", originalTransactionId: "510000000001100", productId: "family.plan",
                ownership: "FAMILY_SHARED", revocationDate: 1_770_599_000_000, revocationType: "FAMILY_REVOKE")),
        Event(
            type: .offerRedeemed, effectiveAt: 1_770_700_000_000,
            evidence: EvidenceRef(position: 88_672, length: 6_400),
            notificationUUID: "e7f8091a-2b3c-4de4-9f5a-6b7c8d9eafb0", notificationType: "OFFER_REDEEMED",
            subtype: "UPGRADE", environment: .production, status: 1,
            transaction: TransactionFacts(
                transactionId: "510000000001201", originalTransactionId: "510000000001200", productId: "pro.yearly",
                purchaseDate: 1_770_699_999_000, price: 4_990, currency: "CAD", storefront: "CAN", offerType: 3,
                offerDiscountType: "PAY_AS_YOU_GO", offerIdentifier: "SPRING-2026", offerPeriod: "P3M",
                isUpgraded: false, transactionReason: "PURCHASE")),
        Event(
            type: .renewalExtended, effectiveAt: 1_770_800_000_000,
            evidence: EvidenceRef(position: 95_072, length: 6_000),
            notificationUUID: "f8091a2b-3c4d-4ef5-8a6b-7c8d9eafb0c1", notificationType: "RENEWAL_EXTENDED",
            environment: .production, status: 1,
            transaction: TransactionFacts(
                transactionId: "510000000001301", originalTransactionId: "510000000001300",
                expiresDate: 1_773_392_000_000)),
        Event(
            type: .renewalExtensionSummary, effectiveAt: 1_770_900_000_000,
            evidence: EvidenceRef(position: 101_072, length: 1_900),
            notificationUUID: "091a2b3c-4d5e-4f06-9b7c-8d9eafb0c1d2", notificationType: "RENEWAL_EXTENSION",
            subtype: "SUMMARY", environment: .production,
            renewalExtensionSummary: RenewalExtensionSummary(
                requestIdentifier: "ab3c4d5e-6f70-4182-93a4-b5c6d7e8f901", productId: "pro.monthly",
                succeededCount: 1_200, failedCount: 3)),
        Event(
            type: .oneTimePurchase, effectiveAt: 1_771_000_000_000,
            evidence: EvidenceRef(position: 102_972, length: 5_500),
            notificationUUID: "1a2b3c4d-5e6f-4071-8c8d-9eafb0c1d2e3", notificationType: "ONE_TIME_CHARGE",
            environment: .production,
            transaction: TransactionFacts(
                transactionId: "510000000001401", originalTransactionId: "510000000001401", productId: "coins.100",
                type: "Consumable", purchaseDate: 1_770_999_999_000, price: 120, currency: "EUR", storefront: "FRA",
                ownership: "PURCHASED", transactionReason: "PURCHASE", quantity: 3)),
        Event(
            type: .consumptionRequested, effectiveAt: 1_771_100_000_000,
            evidence: EvidenceRef(position: 108_472, length: 5_600),
            notificationUUID: "2b3c4d5e-6f70-4182-9d9e-afb0c1d2e3f4", notificationType: "CONSUMPTION_REQUEST",
            environment: .production, consumptionRequestReason: "UNINTENDED_PURCHASE",
            transaction: TransactionFacts(transactionId: "510000000001401", originalTransactionId: "510000000001401")),
        Event(
            type: .test, effectiveAt: 1_771_200_000_000, evidence: EvidenceRef(position: 114_072, length: 1_200),
            notificationUUID: "3c4d5e6f-7081-4293-8eaf-b0c1d2e3f405", notificationType: "TEST", environment: .sandbox),
        Event(
            type: .externalPurchaseToken, effectiveAt: 1_771_300_000_000,
            evidence: EvidenceRef(position: 115_272, length: 1_500),
            notificationUUID: "4d5e6f70-8192-43a4-9fb0-c1d2e3f40516", notificationType: "EXTERNAL_PURCHASE_TOKEN",
            subtype: "UNREPORTED", environment: .production,
            externalPurchaseToken: ExternalPurchaseTokenFacts(
                externalPurchaseId: "b2c3d4e5-f607-4819-a2b3-c4d5e6f70819", tokenCreationDate: 1_771_299_000_000,
                appAppleId: 1_470_168_868, bundleId: "com.example.app")),
        Event(
            type: .metadataUpdated, effectiveAt: 1_771_400_000_000,
            evidence: EvidenceRef(position: 116_772, length: 1_600),
            notificationUUID: "5e6f7081-92a3-44b5-80c1-d2e3f4051627", notificationType: "METADATA_UPDATE",
            subtype: "OFFER_CHANGED", environment: .production),
        Event(
            type: .migrated, effectiveAt: 1_771_500_000_000, evidence: EvidenceRef(position: 118_372, length: 1_700),
            notificationUUID: "6f708192-a3b4-45c6-81d2-e3f405162738", notificationType: "MIGRATION",
            environment: .production,
            transaction: TransactionFacts(transactionId: "510000000001501", originalTransactionId: "510000000001500")),
        Event(
            type: .priceChanged, effectiveAt: 1_771_600_000_000,
            evidence: EvidenceRef(position: 120_072, length: 1_800),
            notificationUUID: "708192a3-b4c5-46d7-92e3-f40516273849", notificationType: "PRICE_CHANGE",
            environment: .production),
        Event(
            type: .consentRescinded, effectiveAt: 1_771_700_000_000,
            evidence: EvidenceRef(position: 121_872, length: 1_900),
            notificationUUID: "8192a3b4-c5d6-47e8-a3f4-05162738495a", notificationType: "RESCIND_CONSENT",
            environment: .production),
        Event(
            type: .transactionBackfilled, effectiveAt: 1_704_067_200_000,
            evidence: EvidenceRef(position: 123_772, length: 2_400),
            environment: .production,
            transaction: TransactionFacts(
                transactionId: "490000000000001", originalTransactionId: "490000000000001", productId: "season.pass",
                type: "Non-Renewing Subscription", purchaseDate: 1_704_067_100_000,
                originalPurchaseDate: 1_704_067_100_000, signedDate: 1_704_067_200_000, price: 1_990_000,
                currency: "ISK", storefront: "ISL", ownership: "PURCHASED", transactionReason: "PURCHASE", quantity: 1)),
        Event(
            type: .unrecognizedNotification, effectiveAt: 1_771_800_000_000,
            evidence: EvidenceRef(position: 18_446_744_073_709_551_615, length: 4_294_967_295),
            notificationUUID: "9A3B4C5D-6E7F-4809-B1C2-D3E4F5061728", notificationType: "SUBSCRIPTION_PAUSED",
            subtype: "ÉTÉ_☀️", environment: AppStoreEnvironment(rawValue: "Staging-Ω"), status: 6,
            transaction: TransactionFacts(
                transactionId: "TX-ÅÄÖ-001", originalTransactionId: "000123", webOrderLineItemId: "9223372036854775808",
                productId: "com.例え.プロ.年間", subscriptionGroupIdentifier: "", type: "Bundle",
                purchaseDate: -9_223_372_036_854_775_808, expiresDate: 9_223_372_036_854_775_807,
                price: -9_223_372_036_854_775_808, currency: "usd", storefront: "", offerType: 99,
                offerDiscountType: "GIFT", offerIdentifier: "cafe\u{301} 🎁 \u{0}", offerPeriod: "P1Y",
                ownership: "GIFTED", isUpgraded: true, revocationReason: -1, revocationType: "CHARGEBACK",
                revocationPercentage: 100_000, appAccountToken: "7e3fB20b-4cdb-47cc-936d-99d65f608138",
                transactionReason: "GIFT", quantity: 0, billingPlanType: "QUARTERLY"),
            renewal: RenewalFacts(
                originalTransactionId: "0", autoRenewProductId: "", autoRenewStatus: 2, expirationIntent: 5,
                priceIncreaseStatus: 1, offerType: 4, offerIdentifier: "win-back ✓", offerDiscountType: "ONE_TIME",
                signedDate: 0, renewalDate: 1_771_800_000_001, renewalBillingPlanType: "WEEKLY"),
            renewalExtensionSummary: RenewalExtensionSummary(requestIdentifier: "not-a-uuid", succeededCount: 0),
            externalPurchaseToken: ExternalPurchaseTokenFacts(externalPurchaseId: "ext-日本")),
        Event(
            type: .renewed, effectiveAt: 1_749_945_600_000, evidence: EvidenceRef(position: 128_000, length: 7_000),
            notificationUUID: "not-a-uuid-at-all", notificationType: "DID_RENEW", subtype: "BILLING_RECOVERY",
            environment: .xcode,
            transaction: TransactionFacts(
                transactionId: "0", originalTransactionId: "9223372036854775807", productId: "",
                offerIdentifier: "", appAccountToken: "7E3FB20B-4CDB-47CC-936D-99D65F608138"),
            renewal: RenewalFacts()),
        Event(
            type: .test, effectiveAt: 0, evidence: EvidenceRef(position: 0, length: 0), environment: .localTesting),
        Event(
            type: .renewalInfoBackfilled, effectiveAt: 1_771_900_000_000,
            evidence: EvidenceRef(position: 135_000, length: 1_200),
            environment: .production,
            renewal: RenewalFacts(
                originalTransactionId: "490000000000002", productId: "pro.monthly", autoRenewProductId: "pro.monthly",
                autoRenewStatus: 0, expirationIntent: 1, signedDate: 1_771_900_000_000, renewalDate: 1_772_000_000_000)),
    ]
}
