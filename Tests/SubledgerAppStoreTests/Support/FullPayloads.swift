import SubledgerAppStore

/// Payloads built field by field in Swift with every documented member set (and an unknown member
/// or two), so a test over them exercises every field.
enum FullPayloads {
    static let unknownObject = UnknownField(name: "futureObject", rawJSON: #"{"nested": [1, 2.5e3, "x", null, true]}"#)
    static let unknownNumber = UnknownField(name: "futureNumber", rawJSON: "-12.75e-1")

    static var transaction: TransactionPayload {
        var commitment = TransactionCommitmentInfo()
        commitment.billingPeriodNumber = 3
        commitment.totalBillingPeriods = 12
        commitment.commitmentExpiresDate = 1_793_491_200_000
        commitment.commitmentPrice = 59_880
        commitment.unknownFields = [unknownNumber]

        var transaction = TransactionPayload()
        transaction.transactionId = "2000000123456789"
        transaction.originalTransactionId = "2000000000000001"
        transaction.previousOriginalTransactionId = "1000000000000001"
        transaction.webOrderLineItemId = "2000000098765432"
        transaction.bundleId = "com.example.app"
        transaction.productId = "com.example.pro.yearly.monthly"
        transaction.subscriptionGroupIdentifier = "21000001"
        transaction.purchaseDate = 1_767_225_600_000
        transaction.originalPurchaseDate = 1_764_547_200_000
        transaction.expiresDate = 1_769_904_000_000
        transaction.quantity = 1
        transaction.type = .autoRenewableSubscription
        transaction.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        transaction.inAppOwnershipType = .purchased
        transaction.signedDate = 1_767_225_601_234
        transaction.revocationReason = .appIssue
        transaction.revocationDate = 1_768_000_000_000
        transaction.revocationType = .refundProrated
        transaction.revocationPercentage = 50_000
        transaction.isUpgraded = false
        transaction.offerType = .winBack
        transaction.offerIdentifier = "winback-50"
        transaction.offerDiscountType = .payAsYouGo
        transaction.offerPeriod = "P3M"
        transaction.environment = .production
        transaction.storefront = "FRA"
        transaction.storefrontId = "143442"
        transaction.transactionReason = .renewal
        transaction.price = 4990
        transaction.currency = "EUR"
        transaction.appTransactionId = "704897469903383919"
        transaction.billingPlanType = .monthly
        transaction.commitmentInfo = commitment
        transaction.deviceVerification = "Vhe42e/UYnbRYj4B97C+7x6qVgekvKlL"
        transaction.deviceVerificationNonce = "b5f0a1f2-2a65-4b2a-8d2c-1f1e0c3a9b7d"
        transaction.unknownFields = [unknownObject]
        return transaction
    }

    static var renewalInfo: RenewalInfoPayload {
        var commitment = RenewalCommitmentInfo()
        commitment.commitmentAutoRenewProductId = "com.example.pro.yearly"
        commitment.commitmentAutoRenewStatus = .off
        commitment.commitmentRenewalBillingPlanType = .monthly
        commitment.commitmentRenewalDate = 1_793_491_200_000
        commitment.commitmentRenewalPrice = 59_880
        commitment.unknownFields = [unknownObject]

        var renewal = RenewalInfoPayload()
        renewal.expirationIntent = .customerDidNotConsentToPriceIncrease
        renewal.originalTransactionId = "2000000000000001"
        renewal.autoRenewProductId = "com.example.pro.yearly.monthly"
        renewal.productId = "com.example.pro.yearly.monthly"
        renewal.autoRenewStatus = .on
        renewal.isInBillingRetryPeriod = true
        renewal.priceIncreaseStatus = .customerHasNotResponded
        renewal.gracePeriodExpiresDate = 1_770_000_000_000
        renewal.offerType = .promotional
        renewal.offerIdentifier = "promo-1"
        renewal.offerDiscountType = .freeTrial
        renewal.offerPeriod = "P1W"
        renewal.signedDate = 1_767_225_601_234
        renewal.environment = .sandbox
        renewal.recentSubscriptionStartDate = 1_764_547_200_000
        renewal.renewalDate = 1_769_904_000_000
        renewal.renewalPrice = 4990
        renewal.currency = "EUR"
        renewal.appAccountToken = "7e3fb20b-4cdb-47cc-936d-99d65f608138"
        renewal.appTransactionId = "704897469903383919"
        renewal.eligibleWinBackOfferIds = ["winback-50", "winback-30"]
        renewal.renewalBillingPlanType = .billedUpfront
        renewal.commitmentInfo = commitment
        renewal.unknownFields = [unknownNumber, unknownObject]
        return renewal
    }

    static var data: NotificationData {
        var data = NotificationData()
        data.appAppleId = 6_473_983_973
        data.bundleId = "com.example.app"
        data.bundleVersion = "42"
        data.environment = .production
        data.signedTransactionInfo = "eyJhbGciOiJFUzI1NiJ9.eyJ0cmFuc2FjdGlvbklkIjoiMSJ9.c2lnbmF0dXJl"
        data.signedRenewalInfo = "eyJhbGciOiJFUzI1NiJ9.eyJwcm9kdWN0SWQiOiJwIn0.c2lnbmF0dXJl"
        data.status = .billingGracePeriod
        data.consumptionRequestReason = .unintendedPurchase
        data.unknownFields = [unknownNumber]
        return data
    }

    static var summary: NotificationSummary {
        var summary = NotificationSummary()
        summary.requestIdentifier = "efb27071-45a4-4aca-9854-2a1e9146f265"
        summary.environment = .localTesting
        summary.appAppleId = 41234
        summary.bundleId = "com.example"
        summary.productId = "com.example.product"
        summary.storefrontCountryCodes = ["CAN", "USA", "MEX"]
        summary.failedCount = 5
        summary.succeededCount = 3
        summary.unknownFields = [unknownObject]
        return summary
    }

    static var externalPurchaseToken: ExternalPurchaseToken {
        var token = ExternalPurchaseToken()
        token.externalPurchaseId = "b2158121-7af9-49d4-9561-1f588205523e"
        token.tokenCreationDate = 1_698_148_950_000
        token.tokenExpirationDate = 1_698_235_350_000
        token.tokenType = .acquisition
        token.appAppleId = 55555
        token.bundleId = "com.example"
        token.unknownFields = [unknownNumber]
        return token
    }

    static var appData: NotificationAppData {
        var appData = NotificationAppData()
        appData.appAppleId = 41234
        appData.bundleId = "com.example"
        appData.environment = .sandbox
        appData.signedAppTransactionInfo = "eyJhbGciOiJFUzI1NiJ9.eyJhcHBBcHBsZUlkIjo0MTIzNH0.c2lnbmF0dXJl"
        appData.unknownFields = [unknownObject]
        return appData
    }

    /// A notification with every member set, `data`, `summary`, `externalPurchaseToken` and
    /// `appData` together (Apple sends one of them; the types allow all four).
    static var notification: NotificationPayload {
        var notification = NotificationPayload()
        notification.notificationType = .didRenew
        notification.subtype = .billingRecovery
        notification.notificationUUID = "002e14d5-51f5-4503-b5a8-c3a1af68eb20"
        notification.version = "2.0"
        notification.signedDate = 1_767_225_602_000
        notification.data = data
        notification.summary = summary
        notification.externalPurchaseToken = externalPurchaseToken
        notification.appData = appData
        notification.unknownFields = [unknownObject, unknownNumber]
        return notification
    }

    static var responseBody: ResponseBodyV2 {
        var body = ResponseBodyV2()
        body.signedPayload = "eyJhbGciOiJFUzI1NiJ9.eyJub3RpZmljYXRpb25UeXBlIjoiVEVTVCJ9.c2lnbmF0dXJl"
        body.unknownFields = [unknownNumber]
        return body
    }
}
