/// The in-app purchase event for which the App Store sent a version 2 notification.
///
/// Apple: [notificationType](https://developer.apple.com/documentation/appstoreservernotifications/notificationtype)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct NotificationType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The customer subscribed to an auto-renewable subscription (see the subtype).
    public static let subscribed = Self(rawValue: "SUBSCRIBED")

    /// The customer changed their subscription plan; an upgrade takes effect now, a downgrade at the
    /// next renewal.
    public static let didChangeRenewalPref = Self(rawValue: "DID_CHANGE_RENEWAL_PREF")

    /// The customer turned automatic renewal on or off.
    public static let didChangeRenewalStatus = Self(rawValue: "DID_CHANGE_RENEWAL_STATUS")

    /// The customer redeemed a promotional offer, offer code or win-back offer.
    public static let offerRedeemed = Self(rawValue: "OFFER_REDEEMED")

    /// The subscription renewed.
    public static let didRenew = Self(rawValue: "DID_RENEW")

    /// The subscription expired (see the subtype for why).
    public static let expired = Self(rawValue: "EXPIRED")

    /// The subscription failed to renew because of a billing issue.
    public static let didFailToRenew = Self(rawValue: "DID_FAIL_TO_RENEW")

    /// The billing grace period ended without a successful renewal.
    public static let gracePeriodExpired = Self(rawValue: "GRACE_PERIOD_EXPIRED")

    /// The system informed the customer of a price increase.
    public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")

    /// The App Store refunded a transaction.
    public static let refund = Self(rawValue: "REFUND")

    /// The App Store declined a refund request.
    public static let refundDeclined = Self(rawValue: "REFUND_DECLINED")

    /// The customer requested a refund and the App Store asks for consumption data.
    public static let consumptionRequest = Self(rawValue: "CONSUMPTION_REQUEST")

    /// The App Store extended the renewal date of a subscription.
    public static let renewalExtended = Self(rawValue: "RENEWAL_EXTENDED")

    /// A family-shared purchase is no longer available through Family Sharing.
    public static let revoke = Self(rawValue: "REVOKE")

    /// A test notification requested through the App Store Server API.
    public static let test = Self(rawValue: "TEST")

    /// Progress of a mass renewal-date extension (see the subtype and summary).
    public static let renewalExtension = Self(rawValue: "RENEWAL_EXTENSION")

    /// The App Store reversed a previously granted refund.
    public static let refundReversed = Self(rawValue: "REFUND_REVERSED")

    /// An external purchase token was created but not reported.
    public static let externalPurchaseToken = Self(rawValue: "EXTERNAL_PURCHASE_TOKEN")

    /// The customer bought a consumable, non-consumable or non-renewing subscription.
    public static let oneTimeCharge = Self(rawValue: "ONE_TIME_CHARGE")

    /// A parent or guardian withdrew consent for a child's use of the app.
    public static let rescindConsent = Self(rawValue: "RESCIND_CONSENT")

    /// Subscription metadata changed through the Advanced Commerce API.
    public static let metadataUpdate = Self(rawValue: "METADATA_UPDATE")

    /// A subscription migrated to the Advanced Commerce API.
    public static let migration = Self(rawValue: "MIGRATION")

    /// A subscription price changed through the Advanced Commerce API.
    public static let priceChange = Self(rawValue: "PRICE_CHANGE")
}
