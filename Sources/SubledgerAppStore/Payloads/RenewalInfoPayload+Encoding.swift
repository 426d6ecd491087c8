import SubledgerCore

extension RenewalInfoPayload: JSONObjectEncodable {
    /// Members in the order Apple's signed renewal infos use; fields the corpus has not shown sit
    /// next to their documented siblings, the 2026 commitment fields last.
    func encodeMembers(into writer: inout JSONWriter) {
        writer.member("expirationIntent", expirationIntent)
        writer.member("originalTransactionId", originalTransactionId)
        writer.member("autoRenewProductId", autoRenewProductId)
        writer.member("productId", productId)
        writer.member("autoRenewStatus", autoRenewStatus)
        writer.member("isInBillingRetryPeriod", isInBillingRetryPeriod)
        writer.member("priceIncreaseStatus", priceIncreaseStatus)
        writer.member("gracePeriodExpiresDate", gracePeriodExpiresDate)
        writer.member("offerType", offerType)
        writer.member("offerIdentifier", offerIdentifier)
        writer.member("renewalPrice", renewalPrice)
        writer.member("currency", currency)
        writer.member("offerDiscountType", offerDiscountType)
        writer.member("offerPeriod", offerPeriod)
        writer.member("signedDate", signedDate)
        writer.member("environment", environment)
        writer.member("recentSubscriptionStartDate", recentSubscriptionStartDate)
        writer.member("renewalDate", renewalDate)
        writer.member("appTransactionId", appTransactionId)
        writer.member("appAccountToken", appAccountToken)
        writer.member("eligibleWinBackOfferIds", eligibleWinBackOfferIds)
        writer.member("renewalBillingPlanType", renewalBillingPlanType)
        writer.member("commitmentInfo", commitmentInfo)
        writer.unknownMembers(unknownFields)
    }
}

extension RenewalInfoPayload {
    /// The JSON of a JWSRenewalInfoDecodedPayload: compact, absent fields omitted, unknown members
    /// written back verbatim after the known ones. `decode(jsonBytes())` gives back an equal value.
    public func jsonBytes() -> [UInt8] {
        JSONWriter.document(self)
    }
}
