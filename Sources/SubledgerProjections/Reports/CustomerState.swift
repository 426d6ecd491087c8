import SubledgerLog

/// One customer at an instant: the contract's `customer --json` document. Instants are epoch
/// milliseconds; `Encodable` writes them as ISO 8601 UTC text and writes every absent field as
/// `null`, so encoding this value gives the contract's JSON.
public struct CustomerState: Sendable, Equatable {
    public var customerId: String
    public var asOf: Int64
    /// Where the log ended for this answer, when asked (`--at-position`): the audit's reference.
    public var atPosition: LogPosition? = nil
    /// The environment of the subscriptions shown (Production first when several).
    public var environment: String?
    /// Sorted, distinct: catalog entitlements (else product ids) of the entitled
    /// subscriptions and of the non-consumables owned and not refunded, in `environment` only.
    public var entitlements: [String]
    /// By first purchase, then `originalTransactionId`.
    public var subscriptions: [SubscriptionState]
    /// One-time purchases, by purchase date.
    public var purchases: [PurchaseState]
}

/// One subscription of a customer at an instant.
public struct SubscriptionState: Sendable, Equatable {
    public var originalTransactionId: String
    public var productId: String?
    public var subscriptionGroupId: String?
    /// An extension to the contract: the subscription's environment.
    public var environment: String?
    public var status: SubscriptionStatus
    /// Exactly when `status` is `active` or `gracePeriod`.
    public var entitled: Bool
    public var periodType: PeriodType
    public var expiresAt: Int64?
    /// Set while in a billing grace period.
    public var gracePeriodExpiresAt: Int64?
    /// nil when no renewal info was ever received.
    public var autoRenew: Bool?
    public var autoRenewProductId: String?
    /// Set once the subscription has expired; nil while it runs (even with auto-renew off).
    public var expirationReason: ExpirationReason?
    public var revocation: Revocation?
    public var revokedAt: Int64?
    public var priceIncrease: PriceIncrease?
    public var billingPlan: BillingPlan
    public var commitment: CommitmentState?
    public var ownership: Ownership
    public var lastTransactionId: String
    /// An extension to the contract: the latest event, by signed time, of those this state takes
    /// in (as `asOf` and `atPosition` admit them): `history --raw` gives it and the ones before.
    public var lastEventPosition: LogPosition? = nil
    /// An extension to the contract: the latest event, of those, that carries
    /// `lastTransactionId`, whose signed transaction gives the period the state is in. The latest
    /// event may be a renewal signed ahead of the period it starts (the App Store charges up to a
    /// day before), which names the next transaction.
    public var lastTransactionEventPosition: LogPosition? = nil
    public var price: Int64?
    public var currency: String?
    public var storefront: String?
    public var firstPurchaseAt: Int64?
    /// Paid (not free-trial) transactions purchased so far, not counting fully refunded ones.
    public var paidPeriods: Int
}

/// A 12-month commitment billed monthly: the current transaction's `commitmentInfo`.
public struct CommitmentState: Sendable, Equatable {
    public var billingPeriodNumber: Int?
    public var totalBillingPeriods: Int?
    public var expiresAt: Int64?
    /// The total across the commitment.
    public var price: Int64?

    public init(billingPeriodNumber: Int?, totalBillingPeriods: Int?, expiresAt: Int64?, price: Int64?) {
        self.billingPeriodNumber = billingPeriodNumber
        self.totalBillingPeriods = totalBillingPeriods
        self.expiresAt = expiresAt
        self.price = price
    }
}

/// A one-time purchase (consumable, non-consumable, non-renewing subscription).
public struct PurchaseState: Sendable, Equatable {
    public var transactionId: String
    public var productId: String?
    /// Apple's `type`, e.g. "Consumable".
    public var type: String?
    public var purchasedAt: Int64?
    public var price: Int64?
    public var currency: String?
    public var refunded: Bool
    /// An extension to the contract, as the subscriptions': the environment it was bought in,
    /// which tells a tester's Sandbox purchase from the same product bought for real.
    public var environment: String? = nil
    /// An extension to the contract: as `SubscriptionState.lastEventPosition`.
    public var lastEventPosition: LogPosition? = nil

    public init(
        transactionId: String, productId: String?, type: String?, purchasedAt: Int64?, price: Int64?,
        currency: String?, refunded: Bool
    ) {
        self.transactionId = transactionId
        self.productId = productId
        self.type = type
        self.purchasedAt = purchasedAt
        self.price = price
        self.currency = currency
        self.refunded = refunded
    }
}

public enum SubscriptionStatus: String, Sendable, Codable, CaseIterable {
    case active
    case gracePeriod = "grace_period"
    case billingRetry = "billing_retry"
    case expired
    case revoked
}

public enum PeriodType: String, Sendable, Codable, CaseIterable {
    case trial, intro, offer, normal
}

public enum ExpirationReason: String, Sendable, Codable, CaseIterable {
    case voluntary
    case billingError = "billing_error"
    case priceIncrease = "price_increase"
    case productNotForSale = "product_not_for_sale"
    case other
}

public enum Revocation: String, Sendable, Codable, CaseIterable {
    case refund
    case familyRevoke = "family_revoke"
}

public enum PriceIncrease: String, Sendable, Codable, CaseIterable {
    case pending, accepted
}

public enum BillingPlan: String, Sendable, Codable, CaseIterable {
    case upfront
    case monthlyCommitment = "monthly_commitment"
}

public enum Ownership: String, Sendable, Codable, CaseIterable {
    case purchased
    case familyShared = "family_shared"
}
