import SubledgerCore

/// The contract's `customer --json` document: instants as ISO 8601 UTC with milliseconds, every
/// absent value as an explicit `null` (synthesised conformances would drop the key).
extension CustomerState: Encodable {
    private enum CodingKeys: String, CodingKey {
        case customerId, asOf, environment, entitlements, subscriptions, purchases
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(customerId, forKey: .customerId)
        try container.encodeInstant(asOf, forKey: .asOf)
        try container.encodeOrNull(environment, forKey: .environment)
        try container.encode(entitlements, forKey: .entitlements)
        try container.encode(subscriptions, forKey: .subscriptions)
        try container.encode(purchases, forKey: .purchases)
    }
}

extension SubscriptionState: Encodable {
    private enum CodingKeys: String, CodingKey {
        case originalTransactionId, productId, subscriptionGroupId, environment, status, entitled, periodType
        case expiresAt, gracePeriodExpiresAt, autoRenew, autoRenewProductId, expirationReason, revocation, revokedAt
        case priceIncrease, billingPlan, commitment, ownership, lastTransactionId, price, currency, storefront
        case firstPurchaseAt, paidPeriods
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(originalTransactionId, forKey: .originalTransactionId)
        try container.encodeOrNull(productId, forKey: .productId)
        try container.encodeOrNull(subscriptionGroupId, forKey: .subscriptionGroupId)
        try container.encodeOrNull(environment, forKey: .environment)
        try container.encode(status, forKey: .status)
        try container.encode(entitled, forKey: .entitled)
        try container.encode(periodType, forKey: .periodType)
        try container.encodeInstant(expiresAt, forKey: .expiresAt)
        try container.encodeInstant(gracePeriodExpiresAt, forKey: .gracePeriodExpiresAt)
        try container.encodeOrNull(autoRenew, forKey: .autoRenew)
        try container.encodeOrNull(autoRenewProductId, forKey: .autoRenewProductId)
        try container.encodeOrNull(expirationReason, forKey: .expirationReason)
        try container.encodeOrNull(revocation, forKey: .revocation)
        try container.encodeInstant(revokedAt, forKey: .revokedAt)
        try container.encodeOrNull(priceIncrease, forKey: .priceIncrease)
        try container.encode(billingPlan, forKey: .billingPlan)
        try container.encodeOrNull(commitment, forKey: .commitment)
        try container.encode(ownership, forKey: .ownership)
        try container.encode(lastTransactionId, forKey: .lastTransactionId)
        try container.encodeOrNull(price, forKey: .price)
        try container.encodeOrNull(currency, forKey: .currency)
        try container.encodeOrNull(storefront, forKey: .storefront)
        try container.encodeInstant(firstPurchaseAt, forKey: .firstPurchaseAt)
        try container.encode(paidPeriods, forKey: .paidPeriods)
    }
}

extension CommitmentState: Encodable {
    private enum CodingKeys: String, CodingKey {
        case billingPeriodNumber, totalBillingPeriods, expiresAt, price
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeOrNull(billingPeriodNumber, forKey: .billingPeriodNumber)
        try container.encodeOrNull(totalBillingPeriods, forKey: .totalBillingPeriods)
        try container.encodeInstant(expiresAt, forKey: .expiresAt)
        try container.encodeOrNull(price, forKey: .price)
    }
}

extension PurchaseState: Encodable {
    private enum CodingKeys: String, CodingKey {
        case transactionId, productId, type, purchasedAt, price, currency, refunded
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(transactionId, forKey: .transactionId)
        try container.encodeOrNull(productId, forKey: .productId)
        try container.encodeOrNull(type, forKey: .type)
        try container.encodeInstant(purchasedAt, forKey: .purchasedAt)
        try container.encodeOrNull(price, forKey: .price)
        try container.encodeOrNull(currency, forKey: .currency)
        try container.encode(refunded, forKey: .refunded)
    }
}

extension KeyedEncodingContainer {
    /// The value, or `null` when absent.
    mutating func encodeOrNull<Value: Encodable>(_ value: Value?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    /// An instant as ISO 8601 UTC text, or `null`.
    mutating func encodeInstant(_ instant: Int64?, forKey key: Key) throws {
        try encodeOrNull(instant.map(UTCInstant.iso8601), forKey: key)
    }
}
