/// One row of the notification → event table: a notification type, a subtype pattern and the
/// event type it produces.
public struct NotificationRule: Hashable, Sendable {
    /// Which `subtype` values a rule matches.
    public enum SubtypePattern: Hashable, Sendable {
        /// The notification carries no subtype.
        case none
        /// Exactly this raw subtype.
        case exactly(String)
        /// Any subtype, or none: the fallback for values Apple adds later.
        case any
    }

    public let notificationType: String
    public let subtype: SubtypePattern
    /// When true the rule matches only a renewal billed inside a 12-month commitment (the
    /// transaction's `billingPlanType` is MONTHLY and it carries `commitmentInfo`).
    public let onlyMonthlyCommitmentRenewal: Bool
    public let eventType: EventType

    public init(
        _ notificationType: String, _ subtype: SubtypePattern,
        onlyMonthlyCommitmentRenewal: Bool = false, _ eventType: EventType
    ) {
        self.notificationType = notificationType
        self.subtype = subtype
        self.onlyMonthlyCommitmentRenewal = onlyMonthlyCommitmentRenewal
        self.eventType = eventType
    }

    public func matches(notificationType: String, subtype: String?, isMonthlyCommitmentRenewal: Bool) -> Bool {
        guard notificationType == self.notificationType else { return false }
        guard isMonthlyCommitmentRenewal || !onlyMonthlyCommitmentRenewal else { return false }
        switch self.subtype {
        case .none: return subtype == nil
        case .exactly(let expected): return subtype == expected
        case .any: return true
        }
    }
}

extension NotificationRule: CustomStringConvertible {
    /// The catalog's notation: `TYPE` (no subtype), `TYPE/SUBTYPE`, `TYPE/*` (any other
    /// subtype or none), with ` (monthly commitment)` appended for the commitment rule.
    public var description: String {
        let pattern =
            switch subtype {
            case .none: notificationType
            case .exactly(let subtype): "\(notificationType)/\(subtype)"
            case .any: "\(notificationType)/*"
            }
        return onlyMonthlyCommitmentRenewal ? pattern + " (monthly commitment)" : pattern
    }
}

extension EventType {
    /// The notification → event table, in match order: the first matching row wins and a
    /// notification type missing from the table gives `.unrecognizedNotification`.
    ///
    /// Rows with an explicit subtype name the values Apple documents; each notification type
    /// ends with a `.any` row so a subtype Apple adds later still lands on its type's event
    /// (the raw subtype is kept in the event).
    public static let notificationRules: [NotificationRule] = [
        NotificationRule("SUBSCRIBED", .exactly("INITIAL_BUY"), .subscriptionStarted),
        NotificationRule("SUBSCRIBED", .exactly("RESUBSCRIBE"), .resubscribed),
        NotificationRule("SUBSCRIBED", .any, .subscriptionStarted),

        NotificationRule("DID_RENEW", .any, onlyMonthlyCommitmentRenewal: true, .commitmentPeriodBilled),
        NotificationRule("DID_RENEW", .none, .renewed),
        NotificationRule("DID_RENEW", .exactly("BILLING_RECOVERY"), .renewed),
        NotificationRule("DID_RENEW", .any, .renewed),

        NotificationRule("DID_FAIL_TO_RENEW", .none, .renewalFailed),
        NotificationRule("DID_FAIL_TO_RENEW", .exactly("GRACE_PERIOD"), .renewalFailed),
        NotificationRule("DID_FAIL_TO_RENEW", .any, .renewalFailed),

        NotificationRule("GRACE_PERIOD_EXPIRED", .any, .gracePeriodExpired),

        NotificationRule("EXPIRED", .exactly("VOLUNTARY"), .expired),
        NotificationRule("EXPIRED", .exactly("BILLING_RETRY"), .expired),
        NotificationRule("EXPIRED", .exactly("PRICE_INCREASE"), .expired),
        NotificationRule("EXPIRED", .exactly("PRODUCT_NOT_FOR_SALE"), .expired),
        NotificationRule("EXPIRED", .any, .expired),

        NotificationRule("DID_CHANGE_RENEWAL_STATUS", .exactly("AUTO_RENEW_ENABLED"), .renewalStatusChanged),
        NotificationRule("DID_CHANGE_RENEWAL_STATUS", .exactly("AUTO_RENEW_DISABLED"), .renewalStatusChanged),
        NotificationRule("DID_CHANGE_RENEWAL_STATUS", .any, .renewalStatusChanged),

        NotificationRule("DID_CHANGE_RENEWAL_PREF", .exactly("UPGRADE"), .renewalPreferenceChanged),
        NotificationRule("DID_CHANGE_RENEWAL_PREF", .exactly("DOWNGRADE"), .renewalPreferenceChanged),
        NotificationRule("DID_CHANGE_RENEWAL_PREF", .none, .renewalPreferenceChanged),
        NotificationRule("DID_CHANGE_RENEWAL_PREF", .any, .renewalPreferenceChanged),

        NotificationRule("PRICE_INCREASE", .exactly("PENDING"), .priceIncrease),
        NotificationRule("PRICE_INCREASE", .exactly("ACCEPTED"), .priceIncrease),
        NotificationRule("PRICE_INCREASE", .any, .priceIncrease),

        NotificationRule("REFUND", .any, .refunded),
        NotificationRule("REFUND_DECLINED", .any, .refundDeclined),
        NotificationRule("REFUND_REVERSED", .any, .refundReversed),
        NotificationRule("REVOKE", .any, .revoked),

        NotificationRule("OFFER_REDEEMED", .exactly("INITIAL_BUY"), .offerRedeemed),
        NotificationRule("OFFER_REDEEMED", .exactly("RESUBSCRIBE"), .offerRedeemed),
        NotificationRule("OFFER_REDEEMED", .exactly("UPGRADE"), .offerRedeemed),
        NotificationRule("OFFER_REDEEMED", .exactly("DOWNGRADE"), .offerRedeemed),
        NotificationRule("OFFER_REDEEMED", .none, .offerRedeemed),
        NotificationRule("OFFER_REDEEMED", .any, .offerRedeemed),

        NotificationRule("RENEWAL_EXTENDED", .any, .renewalExtended),

        NotificationRule("RENEWAL_EXTENSION", .exactly("SUMMARY"), .renewalExtensionSummary),
        NotificationRule("RENEWAL_EXTENSION", .exactly("FAILURE"), .renewalExtensionSummary),
        NotificationRule("RENEWAL_EXTENSION", .any, .renewalExtensionSummary),

        NotificationRule("ONE_TIME_CHARGE", .any, .oneTimePurchase),
        NotificationRule("CONSUMPTION_REQUEST", .any, .consumptionRequested),
        NotificationRule("TEST", .any, .test),

        NotificationRule("EXTERNAL_PURCHASE_TOKEN", .exactly("UNREPORTED"), .externalPurchaseToken),
        NotificationRule("EXTERNAL_PURCHASE_TOKEN", .any, .externalPurchaseToken),

        NotificationRule("METADATA_UPDATE", .any, .metadataUpdated),
        NotificationRule("MIGRATION", .any, .migrated),
        NotificationRule("PRICE_CHANGE", .any, .priceChanged),
        NotificationRule("RESCIND_CONSENT", .any, .consentRescinded),
    ]

    /// The event type for a notification, by the first matching row of `notificationRules`.
    ///
    /// - Parameters:
    ///   - notificationType: the notification's raw `notificationType`, verbatim.
    ///   - subtype: its raw `subtype`, or nil when absent.
    ///   - isMonthlyCommitmentRenewal: whether the notification's transaction has
    ///     `billingPlanType` MONTHLY and carries `commitmentInfo`; only DID_RENEW looks at it.
    /// - Returns: `.unrecognizedNotification` for a notification type this build does not know;
    ///   such notifications are kept, never rejected. Bare transactions from transaction
    ///   history are `.transactionBackfilled` and never pass through here.
    public static func classify(
        notificationType: String, subtype: String?, isMonthlyCommitmentRenewal: Bool
    ) -> EventType {
        for rule in notificationRules
        where rule.matches(
            notificationType: notificationType, subtype: subtype,
            isMonthlyCommitmentRenewal: isMonthlyCommitmentRenewal)
        {
            return rule.eventType
        }
        return .unrecognizedNotification
    }
}
