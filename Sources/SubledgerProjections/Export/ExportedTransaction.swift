/// One transaction as `subledger export` writes it: its latest signed version (as reports count
/// it), the customer and environment it belongs to, and the refund it went through.
public struct ExportedTransaction: Sendable, Equatable {
    public var transactionId: String
    public var originalTransactionId: String
    public var customerId: String
    public var environment: String?
    public var productId: String?
    public var subscriptionGroupId: String?
    /// Apple's `type`: `Auto-Renewable Subscription`, `Consumable`, ...
    public var type: String?
    /// Apple's `inAppOwnershipType`: `PURCHASED` or `FAMILY_SHARED`.
    public var ownership: String?
    public var storefront: String?
    public var currency: String?
    /// Milliunits of `currency`.
    public var price: Int64?
    public var purchaseDate: Int64?
    public var originalPurchaseDate: Int64?
    public var expiresDate: Int64?
    public var offerType: Int?
    public var offerDiscountType: String?
    public var offerPeriod: String?
    public var billingPlanType: String?
    public var isUpgraded: Bool
    /// As the latest signed version says (family revokes included).
    public var revocationDate: Int64?
    public var revocationType: String?
    public var revocationPercentage: Int64?
    /// The last refund (never a family revoke): when, how much (prorated), and when it was
    /// reversed if it was.
    public var refundDate: Int64?
    public var refundAmount: Int64?
    public var refundReversedDate: Int64?
}
