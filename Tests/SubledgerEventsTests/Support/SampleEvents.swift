import SubledgerEvents

enum SampleEvents {
    /// A DID_RENEW as the App Store sends it (field values from a real sandbox notification).
    static let renewal = Event(
        type: .renewed,
        effectiveAt: 1_759_302_518_835,
        evidence: EvidenceRef(position: 48_213_504, length: 7_412),
        notificationUUID: "1a7cdc3d-9360-49c3-ae37-0423e4c6e7c7",
        notificationType: "DID_RENEW",
        environment: .sandbox,
        status: 1,
        transaction: TransactionFacts(
            transactionId: "2000001024998954",
            originalTransactionId: "2000001024993299",
            webOrderLineItemId: "2000000113755461",
            productId: "com.getsession.org.pro_sub",
            subscriptionGroupIdentifier: "21752814",
            type: "Auto-Renewable Subscription",
            purchaseDate: 1_759_302_552_000,
            originalPurchaseDate: 1_759_301_833_000,
            expiresDate: 1_759_302_732_000,
            signedDate: 1_759_302_518_835,
            price: 1_990,
            currency: "AUD",
            storefront: "AUS",
            ownership: "PURCHASED",
            transactionReason: "RENEWAL",
            quantity: 1),
        renewal: RenewalFacts(
            originalTransactionId: "2000001024993299",
            productId: "com.getsession.org.pro_sub",
            autoRenewProductId: "com.getsession.org.pro_sub",
            autoRenewStatus: 1,
            renewalPrice: 1_990,
            currency: "AUD",
            signedDate: 1_759_302_518_835,
            renewalDate: 1_759_302_732_000,
            recentSubscriptionStartDate: 1_759_301_832_000))
}
