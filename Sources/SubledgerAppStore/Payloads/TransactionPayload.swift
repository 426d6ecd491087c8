import SubledgerEvents

/// A transaction: the decoded payload of `signedTransactionInfo`.
///
/// Apple: [JWSTransactionDecodedPayload](https://developer.apple.com/documentation/appstoreservernotifications/jwstransactiondecodedpayload)
///
/// Every field is optional: Apple omits what does not apply, and the decoder does not decide
/// which fields a use needs. Identifiers are strings and amounts milliunits, as Apple sends them.
/// Dates are epoch milliseconds; the fractional milliseconds of Xcode-signed data are rounded
/// down (floor), so a date never moves later than the instant Apple wrote.
public struct TransactionPayload: Hashable, Sendable {
    /// Unique identifier of this transaction (purchase, restore or renewal).
    public var transactionId: String?

    /// The transaction identifier of the original purchase; stable across renewals.
    public var originalTransactionId: String?

    /// The original transaction identifier before a migration to the Advanced Commerce API.
    public var previousOriginalTransactionId: String?

    /// Unique identifier of a subscription purchase event across devices, including renewals.
    public var webOrderLineItemId: String?

    /// The app's bundle identifier.
    public var bundleId: String?

    /// The product identifier from App Store Connect.
    public var productId: String?

    /// The subscription group the product belongs to.
    public var subscriptionGroupIdentifier: String?

    /// When the App Store charged the customer, epoch milliseconds.
    public var purchaseDate: Int64?

    /// The purchase date of the original transaction, epoch milliseconds.
    public var originalPurchaseDate: Int64?

    /// When the subscription period expires or renews, epoch milliseconds.
    public var expiresDate: Int64?

    /// The number of consumable items bought.
    public var quantity: Int?

    /// The kind of in-app purchase.
    public var type: ProductType?

    /// The UUID the app attached to the purchase, if any.
    public var appAccountToken: String?

    /// Whether the customer bought it or has it through Family Sharing.
    public var inAppOwnershipType: InAppOwnershipType?

    /// When the App Store signed this JWS, epoch milliseconds.
    public var signedDate: Int64?

    /// Why the App Store refunded or revoked the transaction.
    public var revocationReason: RevocationReason?

    /// When the App Store refunded or revoked the transaction, epoch milliseconds.
    public var revocationDate: Int64?

    /// How the transaction was revoked.
    public var revocationType: RevocationType?

    /// The refunded share in milliunits of a percent (`50000` = 50%), for prorated refunds.
    public var revocationPercentage: Int64?

    /// Whether the customer upgraded to another subscription, ending this one.
    public var isUpgraded: Bool?

    /// The kind of subscription offer applied.
    public var offerType: OfferType?

    /// The offer code or promotional offer identifier.
    public var offerIdentifier: String?

    /// The payment mode of the offer.
    public var offerDiscountType: OfferDiscountType?

    /// The offer duration as an ISO 8601 duration (`P1M`).
    public var offerPeriod: String?

    /// The environment that signed the transaction.
    public var environment: AppStoreEnvironment?

    /// The storefront's ISO 3166-1 alpha-3 country code.
    public var storefront: String?

    /// Apple's identifier of the storefront.
    public var storefrontId: String?

    /// Whether the customer bought it or the App Store renewed it.
    public var transactionReason: TransactionReason?

    /// The price in milliunits of `currency` (`9990` = 9.99).
    public var price: Int64?

    /// The ISO 4217 currency code of `price`.
    public var currency: String?

    /// Unique identifier of the app download transaction.
    public var appTransactionId: String?

    /// How a 12-month commitment is billed (2026).
    public var billingPlanType: BillingPlanType?

    /// The state of a 12-month commitment; present only while in one (2026).
    public var commitmentInfo: TransactionCommitmentInfo?

    /// Base64 device verification value; present in transactions StoreKit signs on device.
    public var deviceVerification: String?

    /// The UUID nonce of `deviceVerification`; present in transactions StoreKit signs on device.
    public var deviceVerificationNonce: String?

    /// Members this version does not know, verbatim; empty when Apple sent only known ones.
    public var unknownFields: [UnknownField] = []

    public init() {}
}
