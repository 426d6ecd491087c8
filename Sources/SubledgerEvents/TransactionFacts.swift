/// The facts of a signed transaction (`JWSTransactionDecodedPayload`) that projections need.
///
/// Field names are Apple's. Dates are epoch milliseconds; prices and `revocationPercentage`
/// are milliunits. Identifiers are the decimal strings Apple sends, kept verbatim.
public struct TransactionFacts: Hashable, Sendable {
    public var transactionId: String?
    public var originalTransactionId: String?
    public var webOrderLineItemId: String?
    public var productId: String?
    public var subscriptionGroupIdentifier: String?
    /// `type`: "Auto-Renewable Subscription", "Non-Consumable", "Consumable",
    /// "Non-Renewing Subscription".
    public var type: String?
    public var purchaseDate: Int64?
    public var originalPurchaseDate: Int64?
    public var expiresDate: Int64?
    public var signedDate: Int64?
    public var price: Int64?
    public var currency: String?
    public var storefront: String?
    /// 1 introductory, 2 promotional, 3 offer code, 4 win-back.
    public var offerType: Int?
    /// FREE_TRIAL, PAY_AS_YOU_GO, PAY_UP_FRONT, ONE_TIME.
    public var offerDiscountType: String?
    public var offerIdentifier: String?
    /// ISO 8601 duration of the offer, e.g. "P1M".
    public var offerPeriod: String?
    /// `inAppOwnershipType`: PURCHASED or FAMILY_SHARED.
    public var ownership: String?
    public var isUpgraded: Bool?
    public var revocationDate: Int64?
    public var revocationReason: Int?
    /// REFUND_FULL, REFUND_PRORATED, FAMILY_REVOKE.
    public var revocationType: String?
    /// Milliunits of a percent: 50000 is 50 %.
    public var revocationPercentage: Int?
    public var appAccountToken: String?
    /// PURCHASE or RENEWAL.
    public var transactionReason: String?
    public var quantity: Int?
    /// BILLED_UPFRONT or MONTHLY.
    public var billingPlanType: String?
    /// `commitmentInfo` of a 12-month commitment billed monthly.
    public var commitment: Commitment?

    /// `commitmentInfo`: where a monthly-billed 12-month commitment stands.
    public struct Commitment: Hashable, Sendable {
        public var billingPeriodNumber: Int?
        public var totalBillingPeriods: Int?
        public var commitmentExpiresDate: Int64?
        /// The total across the commitment, in milliunits.
        public var commitmentPrice: Int64?

        public init(
            billingPeriodNumber: Int? = nil, totalBillingPeriods: Int? = nil,
            commitmentExpiresDate: Int64? = nil, commitmentPrice: Int64? = nil
        ) {
            self.billingPeriodNumber = billingPeriodNumber
            self.totalBillingPeriods = totalBillingPeriods
            self.commitmentExpiresDate = commitmentExpiresDate
            self.commitmentPrice = commitmentPrice
        }
    }

    public init(
        transactionId: String? = nil,
        originalTransactionId: String? = nil,
        webOrderLineItemId: String? = nil,
        productId: String? = nil,
        subscriptionGroupIdentifier: String? = nil,
        type: String? = nil,
        purchaseDate: Int64? = nil,
        originalPurchaseDate: Int64? = nil,
        expiresDate: Int64? = nil,
        signedDate: Int64? = nil,
        price: Int64? = nil,
        currency: String? = nil,
        storefront: String? = nil,
        offerType: Int? = nil,
        offerDiscountType: String? = nil,
        offerIdentifier: String? = nil,
        offerPeriod: String? = nil,
        ownership: String? = nil,
        isUpgraded: Bool? = nil,
        revocationDate: Int64? = nil,
        revocationReason: Int? = nil,
        revocationType: String? = nil,
        revocationPercentage: Int? = nil,
        appAccountToken: String? = nil,
        transactionReason: String? = nil,
        quantity: Int? = nil,
        billingPlanType: String? = nil,
        commitment: Commitment? = nil
    ) {
        self.transactionId = transactionId
        self.originalTransactionId = originalTransactionId
        self.webOrderLineItemId = webOrderLineItemId
        self.productId = productId
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.type = type
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.signedDate = signedDate
        self.price = price
        self.currency = currency
        self.storefront = storefront
        self.offerType = offerType
        self.offerDiscountType = offerDiscountType
        self.offerIdentifier = offerIdentifier
        self.offerPeriod = offerPeriod
        self.ownership = ownership
        self.isUpgraded = isUpgraded
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.revocationType = revocationType
        self.revocationPercentage = revocationPercentage
        self.appAccountToken = appAccountToken
        self.transactionReason = transactionReason
        self.quantity = quantity
        self.billingPlanType = billingPlanType
        self.commitment = commitment
    }
}
