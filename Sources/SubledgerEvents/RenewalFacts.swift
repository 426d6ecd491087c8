/// The facts of a signed renewal info (`JWSRenewalInfoDecodedPayload`) that projections need.
///
/// Field names are Apple's. Dates are epoch milliseconds; prices are milliunits.
public struct RenewalFacts: Hashable, Sendable {
    public var originalTransactionId: String?
    public var productId: String?
    public var autoRenewProductId: String?
    /// 0 off, 1 on.
    public var autoRenewStatus: Int?
    /// 1 cancelled, 2 billing error, 3 no price-increase consent, 4 product unavailable, 5 other.
    public var expirationIntent: Int?
    public var isInBillingRetryPeriod: Bool?
    public var gracePeriodExpiresDate: Int64?
    /// 0 not yet responded, 1 consented (or no consent needed).
    public var priceIncreaseStatus: Int?
    public var renewalPrice: Int64?
    public var currency: String?
    public var offerType: Int?
    public var offerIdentifier: String?
    public var offerDiscountType: String?
    public var signedDate: Int64?
    public var renewalDate: Int64?
    public var recentSubscriptionStartDate: Int64?
    /// BILLED_UPFRONT or MONTHLY.
    public var renewalBillingPlanType: String?
    /// `commitmentInfo`: present only while in a 12-month commitment.
    public var commitment: CommitmentRenewal?

    /// The renewal side of a 12-month commitment (`commitmentInfo` in renewal info).
    public struct CommitmentRenewal: Hashable, Sendable {
        public var commitmentAutoRenewProductId: String?
        public var commitmentAutoRenewStatus: Int?
        public var commitmentRenewalBillingPlanType: String?
        public var commitmentRenewalDate: Int64?
        public var commitmentRenewalPrice: Int64?

        public init(
            commitmentAutoRenewProductId: String? = nil, commitmentAutoRenewStatus: Int? = nil,
            commitmentRenewalBillingPlanType: String? = nil, commitmentRenewalDate: Int64? = nil,
            commitmentRenewalPrice: Int64? = nil
        ) {
            self.commitmentAutoRenewProductId = commitmentAutoRenewProductId
            self.commitmentAutoRenewStatus = commitmentAutoRenewStatus
            self.commitmentRenewalBillingPlanType = commitmentRenewalBillingPlanType
            self.commitmentRenewalDate = commitmentRenewalDate
            self.commitmentRenewalPrice = commitmentRenewalPrice
        }
    }

    public init(
        originalTransactionId: String? = nil,
        productId: String? = nil,
        autoRenewProductId: String? = nil,
        autoRenewStatus: Int? = nil,
        expirationIntent: Int? = nil,
        isInBillingRetryPeriod: Bool? = nil,
        gracePeriodExpiresDate: Int64? = nil,
        priceIncreaseStatus: Int? = nil,
        renewalPrice: Int64? = nil,
        currency: String? = nil,
        offerType: Int? = nil,
        offerIdentifier: String? = nil,
        offerDiscountType: String? = nil,
        signedDate: Int64? = nil,
        renewalDate: Int64? = nil,
        recentSubscriptionStartDate: Int64? = nil,
        renewalBillingPlanType: String? = nil,
        commitment: CommitmentRenewal? = nil
    ) {
        self.originalTransactionId = originalTransactionId
        self.productId = productId
        self.autoRenewProductId = autoRenewProductId
        self.autoRenewStatus = autoRenewStatus
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.priceIncreaseStatus = priceIncreaseStatus
        self.renewalPrice = renewalPrice
        self.currency = currency
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.signedDate = signedDate
        self.renewalDate = renewalDate
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalBillingPlanType = renewalBillingPlanType
        self.commitment = commitment
    }
}
