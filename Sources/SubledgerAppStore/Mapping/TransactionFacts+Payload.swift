import SubledgerEvents

extension TransactionFacts {
    /// Every fact of the transaction the event model keeps; Apple's enumerations as raw values.
    init(_ transaction: TransactionPayload) {
        self.init(
            transactionId: transaction.transactionId,
            originalTransactionId: transaction.originalTransactionId,
            webOrderLineItemId: transaction.webOrderLineItemId,
            productId: transaction.productId,
            subscriptionGroupIdentifier: transaction.subscriptionGroupIdentifier,
            type: transaction.type?.rawValue,
            purchaseDate: transaction.purchaseDate,
            originalPurchaseDate: transaction.originalPurchaseDate,
            expiresDate: transaction.expiresDate,
            signedDate: transaction.signedDate,
            price: transaction.price,
            currency: transaction.currency,
            storefront: transaction.storefront,
            offerType: transaction.offerType?.rawValue,
            offerDiscountType: transaction.offerDiscountType?.rawValue,
            offerIdentifier: transaction.offerIdentifier,
            offerPeriod: transaction.offerPeriod,
            ownership: transaction.inAppOwnershipType?.rawValue,
            isUpgraded: transaction.isUpgraded,
            revocationDate: transaction.revocationDate,
            revocationReason: transaction.revocationReason?.rawValue,
            revocationType: transaction.revocationType?.rawValue,
            revocationPercentage: transaction.revocationPercentage.map { Int($0) },
            appAccountToken: transaction.appAccountToken,
            transactionReason: transaction.transactionReason?.rawValue,
            quantity: transaction.quantity,
            billingPlanType: transaction.billingPlanType?.rawValue,
            commitment: transaction.commitmentInfo.map(Commitment.init))
    }
}

extension TransactionFacts.Commitment {
    init(_ info: TransactionCommitmentInfo) {
        self.init(
            billingPeriodNumber: info.billingPeriodNumber,
            totalBillingPeriods: info.totalBillingPeriods,
            commitmentExpiresDate: info.commitmentExpiresDate,
            commitmentPrice: info.commitmentPrice)
    }
}
