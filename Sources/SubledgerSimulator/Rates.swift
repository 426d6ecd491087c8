/// How often each thing happens in a simulated customer's life. Per-month rates are
/// probabilities for one month of service (scaled to a period's length as 1 − (1 − p)^months);
/// "share" and "chance" rates are probabilities per opportunity.
///
/// The defaults are plausible for a consumer subscription app (a few percent monthly churn,
/// most trials converting, billing failures mostly recovered) and are tuned so that a run of
/// a few hundred customers over a year shows every lifecycle at least once.
public struct Rates: Sendable, Equatable {
    // MARK: Acquisition

    /// Share of customers whose app sets an `appAccountToken` on purchases.
    public var appAccountToken = 0.85
    /// Share of customers who join in the first 30 days (a launch); the rest join uniformly
    /// over the whole simulation.
    public var launchShare = 0.2
    /// Storefront weights.
    public var usa = 0.6
    public var germany = 0.25
    public var japan = 0.15
    /// First-product weights.
    public var basicMonthly = 0.35
    public var proMonthly = 0.3
    public var proYearly = 0.15
    public var proYearlyCommitment = 0.2

    // MARK: Intro offers (first purchase only; never on the commitment product)

    /// Chance of a one-week free trial.
    public var freeTrial = 0.3
    /// Chance of three discounted months, pay as you go (monthly products).
    public var payAsYouGo = 0.1
    /// Chance of three months paid up front at a discount (monthly products).
    public var payUpFront = 0.05
    /// Chance a free trial converts; otherwise the customer turns auto-renew off during it.
    public var trialConversion = 0.6

    // MARK: Active life

    /// Turning auto-renew off (DID_CHANGE_RENEWAL_STATUS / AUTO_RENEW_DISABLED).
    public var cancelPerMonth = 0.06
    /// Chance a cancelled customer turns auto-renew back on before the period ends.
    public var reenable = 0.25
    /// Upgrading basic → pro, effective immediately.
    public var upgradePerMonth = 0.03
    /// Downgrading pro → basic, effective at the next renewal.
    public var downgradePerMonth = 0.015
    /// Redeeming an offer code for the next month (OFFER_REDEEMED), monthly products.
    public var offerCodePerMonth = 0.01
    /// The developer extending the renewal date by 7 or 14 days (RENEWAL_EXTENDED).
    public var renewalExtensionPerMonth = 0.01
    /// A price increase that needs consent (PRICE_INCREASE / PENDING), at most once.
    public var priceIncreasePerMonth = 0.03
    /// Chance the customer consents before the renewal (PRICE_INCREASE / ACCEPTED); otherwise
    /// the subscription expires with EXPIRED / PRICE_INCREASE.
    public var priceIncreaseAccepted = 0.65
    /// Chance a renewal finds the product no longer for sale (EXPIRED / PRODUCT_NOT_FOR_SALE).
    public var productNotForSale = 0.002

    // MARK: Billing

    /// Chance a renewal charge fails (DID_FAIL_TO_RENEW / GRACE_PERIOD, 16-day grace period).
    public var billingFailure = 0.06
    /// Chance the charge succeeds during the grace period (DID_RENEW / BILLING_RECOVERY).
    public var graceRecovery = 0.5
    /// Chance it succeeds later in the 60-day billing retry (never for commitments, which
    /// default instead).
    public var retryRecovery = 0.4

    // MARK: Refunds

    /// Chance a paid purchase leads to a refund request within 14 days.
    public var refundRequest = 0.035
    /// Chance the App Store asks for consumption data first (CONSUMPTION_REQUEST).
    public var consumptionRequest = 0.6
    /// Chance the refund is granted (REFUND), else REFUND_DECLINED.
    public var refundGranted = 0.7
    /// Chance a granted subscription refund is prorated (REFUND_PRORATED) rather than full.
    public var proratedRefund = 0.4
    /// Chance a refund is reversed a few days later (REFUND_REVERSED).
    public var refundReversed = 0.25

    // MARK: After expiry

    /// Chance an expired or refunded customer comes back (SUBSCRIBED / RESUBSCRIBE).
    public var resubscribe = 0.3
    /// Chance a returning customer eligible for one uses a win-back offer.
    public var winBack = 0.5

    // MARK: Family sharing

    /// Chance a first pro purchase is shared with one family member (FAMILY_SHARED copies).
    public var familySharing = 0.15
    /// The purchaser stopping sharing (REVOKE for the family member).
    public var familyRevokePerMonth = 0.04

    // MARK: One-time purchases

    /// Consumable purchases (coins.100) per customer and month of membership.
    public var consumablesPerMonth = 0.1
    /// Non-renewing subscription purchases (pass.30days) per customer and month.
    public var passPerMonth = 0.01

    public init() {}

    /// Every probability, for validation.
    var probabilities: [(name: String, value: Double)] {
        [("appAccountToken", appAccountToken), ("launchShare", launchShare), ("freeTrial", freeTrial),
         ("payAsYouGo", payAsYouGo), ("payUpFront", payUpFront), ("trialConversion", trialConversion),
         ("cancelPerMonth", cancelPerMonth), ("reenable", reenable), ("upgradePerMonth", upgradePerMonth),
         ("downgradePerMonth", downgradePerMonth), ("offerCodePerMonth", offerCodePerMonth),
         ("renewalExtensionPerMonth", renewalExtensionPerMonth), ("priceIncreasePerMonth", priceIncreasePerMonth),
         ("priceIncreaseAccepted", priceIncreaseAccepted), ("productNotForSale", productNotForSale),
         ("billingFailure", billingFailure), ("graceRecovery", graceRecovery), ("retryRecovery", retryRecovery),
         ("refundRequest", refundRequest), ("consumptionRequest", consumptionRequest),
         ("refundGranted", refundGranted), ("proratedRefund", proratedRefund), ("refundReversed", refundReversed),
         ("resubscribe", resubscribe), ("winBack", winBack), ("familySharing", familySharing),
         ("familyRevokePerMonth", familyRevokePerMonth)]
    }

    /// Non-negative weights that need a positive sum.
    var weightGroups: [(name: String, values: [Double])] {
        [("storefront weights (usa, germany, japan)", [usa, germany, japan]),
         ("product weights", [basicMonthly, proMonthly, proYearly, proYearlyCommitment])]
    }
}
