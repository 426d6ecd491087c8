/// Details of some notification types.
///
/// Apple: [subtype](https://developer.apple.com/documentation/appstoreservernotifications/subtype)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct NotificationSubtype: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// First purchase of any subscription in the group (with SUBSCRIBED).
    public static let initialBuy = Self(rawValue: "INITIAL_BUY")

    /// Resubscribed to the same or another subscription in the group (with SUBSCRIBED).
    public static let resubscribe = Self(rawValue: "RESUBSCRIBE")

    /// Downgraded or cross-graded; takes effect at the next renewal (with DID_CHANGE_RENEWAL_PREF).
    public static let downgrade = Self(rawValue: "DOWNGRADE")

    /// Upgraded or cross-graded; takes effect immediately (with DID_CHANGE_RENEWAL_PREF).
    public static let upgrade = Self(rawValue: "UPGRADE")

    /// Automatic renewal turned on (with DID_CHANGE_RENEWAL_STATUS).
    public static let autoRenewEnabled = Self(rawValue: "AUTO_RENEW_ENABLED")

    /// Automatic renewal turned off (with DID_CHANGE_RENEWAL_STATUS).
    public static let autoRenewDisabled = Self(rawValue: "AUTO_RENEW_DISABLED")

    /// Expired after the customer turned off renewal (with EXPIRED).
    public static let voluntary = Self(rawValue: "VOLUNTARY")

    /// Expired after billing retry ended without success (with EXPIRED).
    public static let billingRetry = Self(rawValue: "BILLING_RETRY")

    /// Expired because the customer did not consent to a price increase (with EXPIRED), or a price
    /// increase the customer must or need not consent to (with PRICE_INCREASE).
    public static let priceIncrease = Self(rawValue: "PRICE_INCREASE")

    /// Renewal failed but service continues in the billing grace period (with DID_FAIL_TO_RENEW).
    public static let gracePeriod = Self(rawValue: "GRACE_PERIOD")

    /// The customer has not yet responded to a price increase (with PRICE_INCREASE).
    public static let pending = Self(rawValue: "PENDING")

    /// The customer consented to a price increase, or none was needed (with PRICE_INCREASE).
    public static let accepted = Self(rawValue: "ACCEPTED")

    /// A previously failed renewal succeeded (with DID_RENEW).
    public static let billingRecovery = Self(rawValue: "BILLING_RECOVERY")

    /// Expired because the product was not for sale at renewal (with EXPIRED).
    public static let productNotForSale = Self(rawValue: "PRODUCT_NOT_FOR_SALE")

    /// A mass renewal-date extension finished (with RENEWAL_EXTENSION).
    public static let summary = Self(rawValue: "SUMMARY")

    /// A renewal-date extension failed for one subscription (with RENEWAL_EXTENSION).
    public static let failure = Self(rawValue: "FAILURE")

    /// An external purchase token was not reported (with EXTERNAL_PURCHASE_TOKEN).
    public static let unreported = Self(rawValue: "UNREPORTED")

    /// An external purchase token is still active and must be reported (with EXTERNAL_PURCHASE_TOKEN).
    public static let activeTokenReminder = Self(rawValue: "ACTIVE_TOKEN_REMINDER")

    /// An external purchase token was created (with EXTERNAL_PURCHASE_TOKEN).
    public static let created = Self(rawValue: "CREATED")
}
