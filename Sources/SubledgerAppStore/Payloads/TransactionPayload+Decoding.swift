extension TransactionPayload: JSONObjectDecodable {
    enum Field: String, CaseIterable, Sendable {
        case transactionId
        case originalTransactionId
        case previousOriginalTransactionId
        case webOrderLineItemId
        case bundleId
        case productId
        case subscriptionGroupIdentifier
        case purchaseDate
        case originalPurchaseDate
        case expiresDate
        case quantity
        case type
        case appAccountToken
        case inAppOwnershipType
        case signedDate
        case revocationReason
        case revocationDate
        case revocationType
        case revocationPercentage
        case isUpgraded
        case offerType
        case offerIdentifier
        case offerDiscountType
        case offerPeriod
        case environment
        case storefront
        case storefrontId
        case transactionReason
        case price
        case currency
        case appTransactionId
        case billingPlanType
        case commitmentInfo
        case deviceVerification
        case deviceVerificationNonce
    }

    static let fields = FieldTable<Field>()

    mutating func decode(_ field: Field, from scanner: inout JSONScanner) throws(PayloadError) {
        switch field {
        case .transactionId: transactionId = try scanner.readString()
        case .originalTransactionId: originalTransactionId = try scanner.readString()
        case .previousOriginalTransactionId: previousOriginalTransactionId = try scanner.readString()
        case .webOrderLineItemId: webOrderLineItemId = try scanner.readString()
        case .bundleId: bundleId = try scanner.readString()
        case .productId: productId = try scanner.readString()
        case .subscriptionGroupIdentifier: subscriptionGroupIdentifier = try scanner.readString()
        case .purchaseDate: purchaseDate = try scanner.readMilliseconds()
        case .originalPurchaseDate: originalPurchaseDate = try scanner.readMilliseconds()
        case .expiresDate: expiresDate = try scanner.readMilliseconds()
        case .quantity: quantity = try scanner.readInt()
        case .type: type = try scanner.readEnum()
        case .appAccountToken: appAccountToken = try scanner.readString()
        case .inAppOwnershipType: inAppOwnershipType = try scanner.readEnum()
        case .signedDate: signedDate = try scanner.readMilliseconds()
        case .revocationReason: revocationReason = try scanner.readEnum()
        case .revocationDate: revocationDate = try scanner.readMilliseconds()
        case .revocationType: revocationType = try scanner.readEnum()
        case .revocationPercentage: revocationPercentage = try scanner.readInt64(in: 0...100_000, "a percentage in thousandths")
        case .isUpgraded: isUpgraded = try scanner.readBool()
        case .offerType: offerType = try scanner.readEnum()
        case .offerIdentifier: offerIdentifier = try scanner.readString()
        case .offerDiscountType: offerDiscountType = try scanner.readEnum()
        case .offerPeriod: offerPeriod = try scanner.readString()
        case .environment: environment = try scanner.readEnum()
        case .storefront: storefront = try scanner.readString()
        case .storefrontId: storefrontId = try scanner.readString()
        case .transactionReason: transactionReason = try scanner.readEnum()
        case .price: price = try scanner.readAmount()
        case .currency: currency = try scanner.readString()
        case .appTransactionId: appTransactionId = try scanner.readString()
        case .billingPlanType: billingPlanType = try scanner.readEnum()
        case .commitmentInfo: commitmentInfo = try scanner.decodeObject(TransactionCommitmentInfo.self)
        case .deviceVerification: deviceVerification = try scanner.readString()
        case .deviceVerificationNonce: deviceVerificationNonce = try scanner.readString()
        }
    }
}

extension TransactionPayload {
    /// Decodes the JSON of a JWSTransactionDecodedPayload. Throws if it is not valid JSON, a known field has the wrong
    /// type, or a member repeats; unknown members and unknown enum values are kept, not rejected.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(PayloadError) -> TransactionPayload {
        try JSONScanner.decodeDocument(bytes, as: Self.self)
    }

    public static func decode(_ bytes: [UInt8]) throws(PayloadError) -> TransactionPayload {
        // Array.withUnsafeBytes rethrows untyped errors; carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(PayloadError) in try decode(buffer) }
        }
        return try result.get()
    }
}
