import SubledgerEvents

/// An enum-like value type that accepts any raw value, so values Apple adds later still decode.
protocol OpenStringEnum: RawRepresentable<String> {
    init(rawValue: String)
}

protocol OpenIntEnum: RawRepresentable<Int> {
    init(rawValue: Int)
}

extension NotificationType: OpenStringEnum {}
extension NotificationSubtype: OpenStringEnum {}
extension AppStoreEnvironment: OpenStringEnum {}
extension ProductType: OpenStringEnum {}
extension InAppOwnershipType: OpenStringEnum {}
extension RevocationType: OpenStringEnum {}
extension OfferDiscountType: OpenStringEnum {}
extension TransactionReason: OpenStringEnum {}
extension BillingPlanType: OpenStringEnum {}
extension ConsumptionRequestReason: OpenStringEnum {}
extension ExternalPurchaseTokenType: OpenStringEnum {}
extension SubscriptionStatus: OpenIntEnum {}
extension ExpirationIntent: OpenIntEnum {}
extension OfferType: OpenIntEnum {}
extension PriceIncreaseStatus: OpenIntEnum {}
extension AutoRenewStatus: OpenIntEnum {}
extension RevocationReason: OpenIntEnum {}

extension JSONScanner {
    mutating func readEnum<Value: OpenStringEnum>() throws(PayloadError) -> Value {
        Value(rawValue: try readString())
    }

    mutating func readEnum<Value: OpenIntEnum>() throws(PayloadError) -> Value {
        Value(rawValue: try readInt())
    }
}
