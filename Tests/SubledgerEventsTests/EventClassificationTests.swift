import SubledgerEvents
import Testing

@Suite("Notification → event classification")
struct EventClassificationTests {
    /// The 23 notification types of App Store Server Notifications V2.
    static let appleNotificationTypes = [
        "CONSUMPTION_REQUEST", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS", "DID_FAIL_TO_RENEW",
        "DID_RENEW", "EXPIRED", "EXTERNAL_PURCHASE_TOKEN", "GRACE_PERIOD_EXPIRED", "METADATA_UPDATE", "MIGRATION",
        "OFFER_REDEEMED", "ONE_TIME_CHARGE", "PRICE_CHANGE", "PRICE_INCREASE", "REFUND", "REFUND_DECLINED",
        "REFUND_REVERSED", "RENEWAL_EXTENDED", "RENEWAL_EXTENSION", "RESCIND_CONSENT", "REVOKE", "SUBSCRIBED", "TEST",
    ]

    @Test("every Apple notification type maps to a business event, with or without a subtype")
    func coversAllNotificationTypes() {
        #expect(Self.appleNotificationTypes.count == 23)
        for type in Self.appleNotificationTypes {
            for subtype in [nil, "SOME_FUTURE_SUBTYPE"] as [String?] {
                let event = EventType.classify(
                    notificationType: type, subtype: subtype, isMonthlyCommitmentRenewal: false)
                #expect(event != .unrecognizedNotification, "\(type)/\(subtype ?? "-")")
                #expect(event != .transactionBackfilled)
            }
        }
        #expect(Set(EventType.notificationRules.map(\.notificationType)) == Set(Self.appleNotificationTypes))
    }

    @Test(
        "each documented notification and subtype gives its event",
        arguments: [
            ("SUBSCRIBED", "INITIAL_BUY", EventType.subscriptionStarted),
            ("SUBSCRIBED", "RESUBSCRIBE", .resubscribed),
            ("DID_RENEW", nil, .renewed),
            ("DID_RENEW", "BILLING_RECOVERY", .renewed),
            ("DID_FAIL_TO_RENEW", nil, .renewalFailed),
            ("DID_FAIL_TO_RENEW", "GRACE_PERIOD", .renewalFailed),
            ("GRACE_PERIOD_EXPIRED", nil, .gracePeriodExpired),
            ("EXPIRED", "VOLUNTARY", .expired),
            ("EXPIRED", "BILLING_RETRY", .expired),
            ("EXPIRED", "PRICE_INCREASE", .expired),
            ("EXPIRED", "PRODUCT_NOT_FOR_SALE", .expired),
            ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", .renewalStatusChanged),
            ("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", .renewalStatusChanged),
            ("DID_CHANGE_RENEWAL_PREF", "UPGRADE", .renewalPreferenceChanged),
            ("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", .renewalPreferenceChanged),
            ("DID_CHANGE_RENEWAL_PREF", nil, .renewalPreferenceChanged),
            ("PRICE_INCREASE", "PENDING", .priceIncrease),
            ("PRICE_INCREASE", "ACCEPTED", .priceIncrease),
            ("REFUND", nil, .refunded),
            ("REFUND_DECLINED", nil, .refundDeclined),
            ("REFUND_REVERSED", nil, .refundReversed),
            ("REVOKE", nil, .revoked),
            ("OFFER_REDEEMED", "INITIAL_BUY", .offerRedeemed),
            ("OFFER_REDEEMED", "RESUBSCRIBE", .offerRedeemed),
            ("OFFER_REDEEMED", "UPGRADE", .offerRedeemed),
            ("OFFER_REDEEMED", "DOWNGRADE", .offerRedeemed),
            ("OFFER_REDEEMED", nil, .offerRedeemed),
            ("RENEWAL_EXTENDED", nil, .renewalExtended),
            ("RENEWAL_EXTENSION", "SUMMARY", .renewalExtensionSummary),
            ("RENEWAL_EXTENSION", "FAILURE", .renewalExtensionSummary),
            ("ONE_TIME_CHARGE", nil, .oneTimePurchase),
            ("CONSUMPTION_REQUEST", nil, .consumptionRequested),
            ("TEST", nil, .test),
            ("EXTERNAL_PURCHASE_TOKEN", "UNREPORTED", .externalPurchaseToken),
            ("METADATA_UPDATE", nil, .metadataUpdated),
            ("MIGRATION", nil, .migrated),
            ("PRICE_CHANGE", nil, .priceChanged),
            ("RESCIND_CONSENT", nil, .consentRescinded),
        ] as [(String, String?, EventType)])
    func documentedMapping(notificationType: String, subtype: String?, expected: EventType) {
        #expect(
            EventType.classify(notificationType: notificationType, subtype: subtype, isMonthlyCommitmentRenewal: false)
                == expected)
    }

    @Test("a renewal billed inside a monthly commitment is a commitment period, whatever its subtype")
    func commitmentRenewals() {
        for subtype in [nil, "BILLING_RECOVERY", "NEW_SUBTYPE"] as [String?] {
            #expect(
                EventType.classify(notificationType: "DID_RENEW", subtype: subtype, isMonthlyCommitmentRenewal: true)
                    == .commitmentPeriodBilled)
        }
    }

    @Test("the commitment flag changes nothing but DID_RENEW")
    func commitmentFlagOnlyForRenewals() {
        for type in Self.appleNotificationTypes where type != "DID_RENEW" {
            for subtype in [nil, "INITIAL_BUY", "VOLUNTARY", "X"] as [String?] {
                #expect(
                    EventType.classify(notificationType: type, subtype: subtype, isMonthlyCommitmentRenewal: true)
                        == EventType.classify(
                            notificationType: type, subtype: subtype, isMonthlyCommitmentRenewal: false))
            }
        }
    }

    @Test("an unknown notification type is kept as an unrecognized notification, never rejected")
    func unknownNotificationTypes() {
        for type in ["SUBSCRIPTION_PAUSED", "", "did_renew", "DID_RENEW "] {
            #expect(
                EventType.classify(notificationType: type, subtype: nil, isMonthlyCommitmentRenewal: false)
                    == .unrecognizedNotification)
            #expect(
                EventType.classify(notificationType: type, subtype: "INITIAL_BUY", isMonthlyCommitmentRenewal: true)
                    == .unrecognizedNotification)
        }
    }

    @Test("rules print in the catalog's notation")
    func ruleNotation() {
        #expect(NotificationRule("DID_RENEW", .none, .renewed).description == "DID_RENEW")
        #expect(NotificationRule("EXPIRED", .exactly("VOLUNTARY"), .expired).description == "EXPIRED/VOLUNTARY")
        #expect(NotificationRule("REFUND", .any, .refunded).description == "REFUND/*")
        #expect(
            NotificationRule("DID_RENEW", .any, onlyMonthlyCommitmentRenewal: true, .commitmentPeriodBilled).description
                == "DID_RENEW/* (monthly commitment)")
    }

    @Test("event codes and names are unique and stable")
    func codesAndNames() {
        #expect(Set(EventType.allCases.map(\.code)).count == EventType.allCases.count)
        #expect(Set(EventType.allCases.map(\.name)).count == EventType.allCases.count)
        for type in EventType.allCases {
            #expect(EventType(code: type.code) == type)
            #expect(EventType(name: type.name) == type)
            #expect(type.currentVersion >= 1)
        }
        #expect(EventType(code: 0) == nil)
        #expect(EventType.renewed.code == 3)
        #expect(EventType.unrecognizedNotification.code == 27)
    }
}
