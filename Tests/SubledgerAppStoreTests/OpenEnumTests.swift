import SubledgerAppStore
import SubledgerEvents
import Testing

/// The raw values below are copied from Apple's documentation, independently of the sources.
@Suite("Open enums")
struct OpenEnumTests {
    private func notification(type: String, subtype: String) throws -> NotificationPayload {
        try NotificationPayload.decode(#"{"notificationType":"\#(type)","subtype":"\#(subtype)"}"#.bytes)
    }

    @Test("all 23 documented notification types decode to their named constants")
    func notificationTypes() throws {
        let documented: [(String, NotificationType)] = [
            ("SUBSCRIBED", .subscribed), ("DID_CHANGE_RENEWAL_PREF", .didChangeRenewalPref),
            ("DID_CHANGE_RENEWAL_STATUS", .didChangeRenewalStatus), ("OFFER_REDEEMED", .offerRedeemed),
            ("DID_RENEW", .didRenew), ("EXPIRED", .expired), ("DID_FAIL_TO_RENEW", .didFailToRenew),
            ("GRACE_PERIOD_EXPIRED", .gracePeriodExpired), ("PRICE_INCREASE", .priceIncrease), ("REFUND", .refund),
            ("REFUND_DECLINED", .refundDeclined), ("CONSUMPTION_REQUEST", .consumptionRequest),
            ("RENEWAL_EXTENDED", .renewalExtended), ("REVOKE", .revoke), ("TEST", .test),
            ("RENEWAL_EXTENSION", .renewalExtension), ("REFUND_REVERSED", .refundReversed),
            ("EXTERNAL_PURCHASE_TOKEN", .externalPurchaseToken), ("ONE_TIME_CHARGE", .oneTimeCharge),
            ("RESCIND_CONSENT", .rescindConsent), ("METADATA_UPDATE", .metadataUpdate), ("MIGRATION", .migration),
            ("PRICE_CHANGE", .priceChange),
        ]
        #expect(documented.count == 23)
        #expect(Set(documented.map(\.1)).count == 23, "constants must be distinct")
        for (raw, constant) in documented {
            #expect(try notification(type: raw, subtype: "X").notificationType == constant, "\(raw)")
        }
    }

    @Test("all documented notification subtypes decode to their named constants")
    func notificationSubtypes() throws {
        let documented: [(String, NotificationSubtype)] = [
            ("INITIAL_BUY", .initialBuy), ("RESUBSCRIBE", .resubscribe), ("DOWNGRADE", .downgrade),
            ("UPGRADE", .upgrade), ("AUTO_RENEW_ENABLED", .autoRenewEnabled),
            ("AUTO_RENEW_DISABLED", .autoRenewDisabled),
            ("VOLUNTARY", .voluntary), ("BILLING_RETRY", .billingRetry), ("PRICE_INCREASE", .priceIncrease),
            ("GRACE_PERIOD", .gracePeriod), ("PENDING", .pending), ("ACCEPTED", .accepted),
            ("BILLING_RECOVERY", .billingRecovery), ("PRODUCT_NOT_FOR_SALE", .productNotForSale), ("SUMMARY", .summary),
            ("FAILURE", .failure), ("UNREPORTED", .unreported), ("ACTIVE_TOKEN_REMINDER", .activeTokenReminder),
            ("CREATED", .created),
        ]
        #expect(Set(documented.map(\.1)).count == documented.count, "constants must be distinct")
        for (raw, constant) in documented {
            #expect(try notification(type: "X", subtype: raw).subtype == constant, "\(raw)")
        }
    }

    @Test("documented string values of transaction and renewal enums map to their constants")
    func stringEnums() throws {
        let environments: [(String, AppStoreEnvironment)] = [
            ("Sandbox", .sandbox), ("Production", .production), ("Xcode", .xcode), ("LocalTesting", .localTesting),
        ]
        for (raw, constant) in environments {
            #expect(try TransactionPayload.decode(#"{"environment":"\#(raw)"}"#.bytes).environment == constant)
        }
        let types: [(String, ProductType)] = [
            ("Auto-Renewable Subscription", .autoRenewableSubscription), ("Non-Consumable", .nonConsumable),
            ("Consumable", .consumable), ("Non-Renewing Subscription", .nonRenewingSubscription),
        ]
        for (raw, constant) in types {
            #expect(try TransactionPayload.decode(#"{"type":"\#(raw)"}"#.bytes).type == constant)
        }
        #expect(InAppOwnershipType.purchased.rawValue == "PURCHASED")
        #expect(InAppOwnershipType.familyShared.rawValue == "FAMILY_SHARED")
        #expect(
            [RevocationType.refundFull, .refundProrated, .familyRevoke].map(\.rawValue) == [
                "REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE",
            ])
        #expect(
            [OfferDiscountType.freeTrial, .payAsYouGo, .payUpFront, .oneTime].map(\.rawValue) == [
                "FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", "ONE_TIME",
            ])
        #expect([TransactionReason.purchase, .renewal].map(\.rawValue) == ["PURCHASE", "RENEWAL"])
        #expect([BillingPlanType.billedUpfront, .monthly].map(\.rawValue) == ["BILLED_UPFRONT", "MONTHLY"])
        #expect(
            [ConsumptionRequestReason.unintendedPurchase, .fulfillmentIssue, .unsatisfiedWithPurchase, .legal, .other]
                .map(\.rawValue)
                == ["UNINTENDED_PURCHASE", "FULFILLMENT_ISSUE", "UNSATISFIED_WITH_PURCHASE", "LEGAL", "OTHER"])
    }

    @Test("documented integer values of status and renewal enums map to their constants")
    func integerEnums() {
        #expect(
            [SubscriptionStatus.active, .expired, .billingRetry, .billingGracePeriod, .revoked].map(\.rawValue) == [
                1, 2, 3, 4, 5,
            ])
        #expect(
            [
                ExpirationIntent.customerCancelled, .billingError, .customerDidNotConsentToPriceIncrease,
                .productNotAvailable, .other,
            ]
            .map(\.rawValue) == [1, 2, 3, 4, 5])
        #expect([OfferType.introductory, .promotional, .offerCode, .winBack].map(\.rawValue) == [1, 2, 3, 4])
        #expect(
            [PriceIncreaseStatus.customerHasNotResponded, .customerConsentedOrWasNotified].map(\.rawValue) == [0, 1])
        #expect([AutoRenewStatus.off, .on].map(\.rawValue) == [0, 1])
        #expect([RevocationReason.other, .appIssue].map(\.rawValue) == [0, 1])
    }

    @Test("an undocumented value keeps its raw value and equals no documented constant")
    func unknownValues() throws {
        let renewal = try RenewalInfoPayload.decode(
            #"{"autoRenewStatus":7,"offerType":5,"offerDiscountType":"NEW_MODE"}"#.bytes)
        #expect(renewal.autoRenewStatus?.rawValue == 7)
        #expect(renewal.autoRenewStatus != .on && renewal.autoRenewStatus != .off)
        #expect(renewal.offerType == OfferType(rawValue: 5))
        #expect(renewal.offerDiscountType?.description == "NEW_MODE")
    }
}
