import SubledgerCore

extension TransactionPayload: JSONObjectEncodable {
    /// Members in the order Apple's signed transactions use; fields the corpus has not shown sit
    /// next to their documented siblings, the 2026 commitment fields last.
    func encodeMembers(into writer: inout JSONWriter) {
        writer.member("transactionId", transactionId)
        writer.member("originalTransactionId", originalTransactionId)
        writer.member("previousOriginalTransactionId", previousOriginalTransactionId)
        writer.member("webOrderLineItemId", webOrderLineItemId)
        writer.member("bundleId", bundleId)
        writer.member("productId", productId)
        writer.member("subscriptionGroupIdentifier", subscriptionGroupIdentifier)
        writer.member("purchaseDate", purchaseDate)
        writer.member("originalPurchaseDate", originalPurchaseDate)
        writer.member("expiresDate", expiresDate)
        writer.member("quantity", quantity)
        writer.member("type", type)
        writer.member("deviceVerification", deviceVerification)
        writer.member("deviceVerificationNonce", deviceVerificationNonce)
        writer.member("appAccountToken", appAccountToken)
        writer.member("inAppOwnershipType", inAppOwnershipType)
        writer.member("signedDate", signedDate)
        writer.member("revocationReason", revocationReason)
        writer.member("revocationDate", revocationDate)
        writer.member("revocationType", revocationType)
        writer.member("revocationPercentage", revocationPercentage)
        writer.member("isUpgraded", isUpgraded)
        writer.member("offerType", offerType)
        writer.member("offerIdentifier", offerIdentifier)
        writer.member("environment", environment)
        writer.member("transactionReason", transactionReason)
        writer.member("storefront", storefront)
        writer.member("storefrontId", storefrontId)
        writer.member("price", price)
        writer.member("currency", currency)
        writer.member("offerDiscountType", offerDiscountType)
        writer.member("offerPeriod", offerPeriod)
        writer.member("appTransactionId", appTransactionId)
        writer.member("billingPlanType", billingPlanType)
        writer.member("commitmentInfo", commitmentInfo)
        writer.unknownMembers(unknownFields)
    }
}

extension TransactionPayload {
    /// The JSON of a JWSTransactionDecodedPayload: compact, absent fields omitted, unknown members
    /// written back verbatim after the known ones. `decode(jsonBytes())` gives back an equal value.
    public func jsonBytes() -> [UInt8] {
        JSONWriter.document(self)
    }
}
