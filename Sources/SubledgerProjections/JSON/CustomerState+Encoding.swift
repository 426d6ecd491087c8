import SubledgerCore

/// The contract's `customer --json` document: members sorted by name (as the first version,
/// written with `JSONEncoder`'s sorted keys, printed them), instants as ISO 8601 UTC with
/// milliseconds, every absent value as an explicit `null`.
///
/// Built as a `JSON` value rather than through `Encodable`: the look-up route answers with this
/// document, and `JSONEncoder` spent more time on it than finding the customer did.
extension CustomerState {
    public var json: JSON {
        .object([
            ("asOf", .instant(asOf)),
        ] + (atPosition.map { [("atPosition", JSON.string($0.description))] } ?? []) + [
            ("customerId", .string(customerId)),
            ("entitlements", .array(entitlements.map { .string($0) })),
            ("environment", .optional(environment)),
            ("purchases", .array(purchases.map(\.json))),
            ("subscriptions", .array(subscriptions.map(\.json))),
        ])
    }
}

extension SubscriptionState {
    var json: JSON {
        var members: [(String, JSON)] = [
            ("autoRenew", autoRenew.map { .bool($0) } ?? .null),
            ("autoRenewProductId", .optional(autoRenewProductId)),
            ("billingPlan", .string(billingPlan.rawValue)),
            ("commitment", commitment?.json ?? .null),
            ("currency", .optional(currency)),
            ("entitled", .bool(entitled)),
            ("environment", .optional(environment)),
            ("expirationReason", .optional(expirationReason?.rawValue)),
            ("expiresAt", .instant(expiresAt)),
            ("firstPurchaseAt", .instant(firstPurchaseAt)),
            ("gracePeriodExpiresAt", .instant(gracePeriodExpiresAt)),
            ("lastTransactionId", .string(lastTransactionId)),
            ("originalTransactionId", .string(originalTransactionId)),
            ("ownership", .string(ownership.rawValue)),
            ("paidPeriods", .int(paidPeriods)),
            ("periodType", .string(periodType.rawValue)),
            ("price", .optional(price)),
            ("priceIncrease", .optional(priceIncrease?.rawValue)),
            ("productId", .optional(productId)),
            ("revocation", .optional(revocation?.rawValue)),
            ("revokedAt", .instant(revokedAt)),
            ("status", .string(status.rawValue)),
            ("storefront", .optional(storefront)),
            ("subscriptionGroupId", .optional(subscriptionGroupId)),
        ]
        // Asked for (`--evidence`), in the members' key order.
        let evidence = [("lastEventPosition", lastEventPosition), ("lastTransactionEventPosition", lastTransactionEventPosition)]
            .compactMap { name, position in position.map { (name, JSON.string($0.description)) } }
        members.insert(contentsOf: evidence, at: members.firstIndex { $0.0 == "lastTransactionId" }!)
        return .object(members)
    }
}

extension CommitmentState {
    var json: JSON {
        .object([
            ("billingPeriodNumber", .optional(billingPeriodNumber.map(Int64.init))),
            ("expiresAt", .instant(expiresAt)),
            ("price", .optional(price)),
            ("totalBillingPeriods", .optional(totalBillingPeriods.map(Int64.init))),
        ])
    }
}

extension PurchaseState {
    var json: JSON {
        .object([
            ("currency", .optional(currency)),
            ("environment", .optional(environment)),
        ] + (lastEventPosition.map { [("lastEventPosition", JSON.string($0.description))] } ?? []) + [
            ("price", .optional(price)),
            ("productId", .optional(productId)),
            ("purchasedAt", .instant(purchasedAt)),
            ("refunded", .bool(refunded)),
            ("transactionId", .string(transactionId)),
            ("type", .optional(type)),
        ])
    }
}
