import SubledgerEvents

extension RenewalFacts {
    /// Every fact of the renewal info the event model keeps; Apple's enumerations as raw values.
    init(_ renewal: RenewalInfoPayload) {
        self.init(
            originalTransactionId: renewal.originalTransactionId,
            productId: renewal.productId,
            autoRenewProductId: renewal.autoRenewProductId,
            autoRenewStatus: renewal.autoRenewStatus?.rawValue,
            expirationIntent: renewal.expirationIntent?.rawValue,
            isInBillingRetryPeriod: renewal.isInBillingRetryPeriod,
            gracePeriodExpiresDate: renewal.gracePeriodExpiresDate,
            priceIncreaseStatus: renewal.priceIncreaseStatus?.rawValue,
            renewalPrice: renewal.renewalPrice,
            currency: renewal.currency,
            offerType: renewal.offerType?.rawValue,
            offerIdentifier: renewal.offerIdentifier,
            offerDiscountType: renewal.offerDiscountType?.rawValue,
            signedDate: renewal.signedDate,
            renewalDate: renewal.renewalDate,
            recentSubscriptionStartDate: renewal.recentSubscriptionStartDate,
            renewalBillingPlanType: renewal.renewalBillingPlanType?.rawValue,
            commitment: renewal.commitmentInfo.map(CommitmentRenewal.init))
    }
}

extension RenewalFacts.CommitmentRenewal {
    init(_ info: RenewalCommitmentInfo) {
        self.init(
            commitmentAutoRenewProductId: info.commitmentAutoRenewProductId,
            commitmentAutoRenewStatus: info.commitmentAutoRenewStatus?.rawValue,
            commitmentRenewalBillingPlanType: info.commitmentRenewalBillingPlanType?.rawValue,
            commitmentRenewalDate: info.commitmentRenewalDate,
            commitmentRenewalPrice: info.commitmentRenewalPrice)
    }
}
