import SubledgerEvents

/// Subscription renewal information: the decoded payload of `signedRenewalInfo`.
///
/// Apple: [JWSRenewalInfoDecodedPayload](https://developer.apple.com/documentation/appstoreservernotifications/jwsrenewalinfodecodedpayload)
///
/// Every field is optional: Apple omits what does not apply, and the decoder does not decide
/// which fields a use needs. Identifiers are strings and amounts milliunits, as Apple sends them.
/// Dates are epoch milliseconds; the fractional milliseconds of Xcode-signed data are rounded
/// down (floor), so a date never moves later than the instant Apple wrote.
public struct RenewalInfoPayload: Hashable, Sendable {
    /// Why the subscription expired.
    public var expirationIntent: ExpirationIntent?

    /// The original transaction identifier of the subscription.
    public var originalTransactionId: String?

    /// The product that renews at the next billing period.
    public var autoRenewProductId: String?

    /// The product the customer is subscribed to now.
    public var productId: String?

    /// Whether the subscription renews automatically.
    public var autoRenewStatus: AutoRenewStatus?

    /// Whether the App Store is trying to renew an expired subscription after a billing error.
    public var isInBillingRetryPeriod: Bool?

    /// Whether the customer responded to a price increase.
    public var priceIncreaseStatus: PriceIncreaseStatus?

    /// When the billing grace period ends, epoch milliseconds.
    public var gracePeriodExpiresDate: Int64?

    /// The kind of offer that applies at the next renewal.
    public var offerType: OfferType?

    /// The offer code or promotional offer identifier.
    public var offerIdentifier: String?

    /// The payment mode of the offer.
    public var offerDiscountType: OfferDiscountType?

    /// The offer duration as an ISO 8601 duration (`P1M`).
    public var offerPeriod: String?

    /// When the App Store signed this JWS, epoch milliseconds.
    public var signedDate: Int64?

    /// The environment that signed the renewal information.
    public var environment: AppStoreEnvironment?

    /// Start of the latest run of paid service, ignoring lapses under 60 days, epoch milliseconds.
    public var recentSubscriptionStartDate: Int64?

    /// When the subscription renews next (or expires), epoch milliseconds.
    public var renewalDate: Int64?

    /// The price of the next renewal in milliunits of `currency`.
    public var renewalPrice: Int64?

    /// The ISO 4217 currency code of `renewalPrice`.
    public var currency: String?

    /// The UUID the app attached to the purchase, if any.
    public var appAccountToken: String?

    /// Unique identifier of the app download transaction.
    public var appTransactionId: String?

    /// Win-back offers the customer may redeem, best first.
    public var eligibleWinBackOfferIds: [String]?

    /// How the next renewal of a 12-month commitment is billed (2026).
    public var renewalBillingPlanType: BillingPlanType?

    /// How a 12-month commitment renews; present only while in one (2026).
    public var commitmentInfo: RenewalCommitmentInfo?

    /// Members this version does not know, verbatim; empty when Apple sent only known ones.
    public var unknownFields: [UnknownField] = []

    public init() {}
}
