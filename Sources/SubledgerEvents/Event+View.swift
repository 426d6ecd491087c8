extension Event {
    /// Materialises a view into an owned event (the view has already validated every field).
    public init(_ view: EventView) {
        self.init(
            type: view.type,
            effectiveAt: view.effectiveAt,
            evidence: view.evidence,
            notificationUUID: view.notificationUUID?.string,
            notificationType: view.notificationType?.string,
            subtype: view.subtype?.string,
            environment: view.environment.map { AppStoreEnvironment(rawValue: $0.string) },
            status: view.status,
            consumptionRequestReason: view.consumptionRequestReason?.string,
            transaction: view.transaction.map(TransactionFacts.init),
            renewal: view.renewal.map(RenewalFacts.init),
            renewalExtensionSummary: view.renewalExtensionSummary.map {
                RenewalExtensionSummary(
                    requestIdentifier: $0.requestIdentifier?.string, productId: $0.productId?.string,
                    succeededCount: $0.succeededCount, failedCount: $0.failedCount)
            },
            externalPurchaseToken: view.externalPurchaseToken.map {
                ExternalPurchaseTokenFacts(
                    externalPurchaseId: $0.externalPurchaseId?.string, tokenCreationDate: $0.tokenCreationDate,
                    appAppleId: $0.appAppleId, bundleId: $0.bundleId?.string)
            })
    }
}

extension TransactionFacts {
    public init(_ view: TransactionView) {
        self.init(
            transactionId: view.transactionId?.string,
            originalTransactionId: view.originalTransactionId?.string,
            webOrderLineItemId: view.webOrderLineItemId?.string,
            productId: view.productId?.string,
            subscriptionGroupIdentifier: view.subscriptionGroupIdentifier?.string,
            type: view.type?.string,
            purchaseDate: view.purchaseDate,
            originalPurchaseDate: view.originalPurchaseDate,
            expiresDate: view.expiresDate,
            signedDate: view.signedDate,
            price: view.price,
            currency: view.currency?.string,
            storefront: view.storefront?.string,
            offerType: view.offerType,
            offerDiscountType: view.offerDiscountType?.string,
            offerIdentifier: view.offerIdentifier?.string,
            offerPeriod: view.offerPeriod?.string,
            ownership: view.ownership?.string,
            isUpgraded: view.isUpgraded,
            revocationDate: view.revocationDate,
            revocationReason: view.revocationReason,
            revocationType: view.revocationType?.string,
            revocationPercentage: view.revocationPercentage,
            appAccountToken: view.appAccountToken?.string,
            transactionReason: view.transactionReason?.string,
            quantity: view.quantity,
            billingPlanType: view.billingPlanType?.string,
            commitment: view.commitment)
    }
}

extension RenewalFacts {
    public init(_ view: RenewalView) {
        self.init(
            originalTransactionId: view.originalTransactionId?.string,
            productId: view.productId?.string,
            autoRenewProductId: view.autoRenewProductId?.string,
            autoRenewStatus: view.autoRenewStatus,
            expirationIntent: view.expirationIntent,
            isInBillingRetryPeriod: view.isInBillingRetryPeriod,
            gracePeriodExpiresDate: view.gracePeriodExpiresDate,
            priceIncreaseStatus: view.priceIncreaseStatus,
            renewalPrice: view.renewalPrice,
            currency: view.currency?.string,
            offerType: view.offerType,
            offerIdentifier: view.offerIdentifier?.string,
            offerDiscountType: view.offerDiscountType?.string,
            signedDate: view.signedDate,
            renewalDate: view.renewalDate,
            recentSubscriptionStartDate: view.recentSubscriptionStartDate,
            renewalBillingPlanType: view.renewalBillingPlanType?.string,
            commitment: view.commitment.map {
                CommitmentRenewal(
                    commitmentAutoRenewProductId: $0.commitmentAutoRenewProductId?.string,
                    commitmentAutoRenewStatus: $0.commitmentAutoRenewStatus,
                    commitmentRenewalBillingPlanType: $0.commitmentRenewalBillingPlanType?.string,
                    commitmentRenewalDate: $0.commitmentRenewalDate,
                    commitmentRenewalPrice: $0.commitmentRenewalPrice)
            })
    }
}
