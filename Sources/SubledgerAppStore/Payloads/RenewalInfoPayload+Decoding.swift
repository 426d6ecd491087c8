extension RenewalInfoPayload: JSONObjectDecodable {
    enum Field: String, CaseIterable, Sendable {
        case expirationIntent
        case originalTransactionId
        case autoRenewProductId
        case productId
        case autoRenewStatus
        case isInBillingRetryPeriod
        case priceIncreaseStatus
        case gracePeriodExpiresDate
        case offerType
        case offerIdentifier
        case offerDiscountType
        case offerPeriod
        case signedDate
        case environment
        case recentSubscriptionStartDate
        case renewalDate
        case renewalPrice
        case currency
        case appAccountToken
        case appTransactionId
        case eligibleWinBackOfferIds
        case renewalBillingPlanType
        case commitmentInfo
    }

    static let fields = FieldTable<Field>()

    mutating func decode(_ field: Field, from scanner: inout JSONScanner) throws(PayloadError) {
        switch field {
        case .expirationIntent: expirationIntent = try scanner.readEnum()
        case .originalTransactionId: originalTransactionId = try scanner.readString()
        case .autoRenewProductId: autoRenewProductId = try scanner.readString()
        case .productId: productId = try scanner.readString()
        case .autoRenewStatus: autoRenewStatus = try scanner.readEnum()
        case .isInBillingRetryPeriod: isInBillingRetryPeriod = try scanner.readBool()
        case .priceIncreaseStatus: priceIncreaseStatus = try scanner.readEnum()
        case .gracePeriodExpiresDate: gracePeriodExpiresDate = try scanner.readMilliseconds()
        case .offerType: offerType = try scanner.readEnum()
        case .offerIdentifier: offerIdentifier = try scanner.readString()
        case .offerDiscountType: offerDiscountType = try scanner.readEnum()
        case .offerPeriod: offerPeriod = try scanner.readString()
        case .signedDate: signedDate = try scanner.readMilliseconds()
        case .environment: environment = try scanner.readEnum()
        case .recentSubscriptionStartDate: recentSubscriptionStartDate = try scanner.readMilliseconds()
        case .renewalDate: renewalDate = try scanner.readMilliseconds()
        case .renewalPrice: renewalPrice = try scanner.readAmount()
        case .currency: currency = try scanner.readString()
        case .appAccountToken: appAccountToken = try scanner.readString()
        case .appTransactionId: appTransactionId = try scanner.readString()
        case .eligibleWinBackOfferIds: eligibleWinBackOfferIds = try scanner.readStringArray()
        case .renewalBillingPlanType: renewalBillingPlanType = try scanner.readEnum()
        case .commitmentInfo: commitmentInfo = try scanner.decodeObject(RenewalCommitmentInfo.self)
        }
    }
}

extension RenewalInfoPayload {
    /// Decodes the JSON of a JWSRenewalInfoDecodedPayload. Throws if it is not valid JSON, a known field has the wrong
    /// type, or a member repeats; unknown members and unknown enum values are kept, not rejected.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(PayloadError) -> RenewalInfoPayload {
        try JSONScanner.decodeDocument(bytes, as: Self.self)
    }

    public static func decode(_ bytes: [UInt8]) throws(PayloadError) -> RenewalInfoPayload {
        // Array.withUnsafeBytes rethrows untyped errors; carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(PayloadError) in try decode(buffer) }
        }
        return try result.get()
    }
}
