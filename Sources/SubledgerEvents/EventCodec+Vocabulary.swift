/// Frozen lists of Apple raw values that the v1 layout writes as a small index instead of the
/// string (smaller records, and decoding yields a static string without allocating).
///
/// An index means the same string forever: never reorder or remove an entry. A value missing
/// here is simply written as a string; adding entries would make records unreadable by older
/// builds, so a longer list belongs to a new layout version.
enum Vocabulary: UInt8, Hashable {
    case notificationType, subtype, environment, consumptionRequestReason, transactionType
    case ownership, offerDiscountType, revocationType, transactionReason, billingPlanType
    case currency, storefront

    var values: [String] {
        switch self {
        case .notificationType: Self.notificationTypes
        case .subtype: Self.subtypes
        case .environment: Self.environments
        case .consumptionRequestReason: Self.consumptionRequestReasons
        case .transactionType: Self.transactionTypes
        case .ownership: Self.ownerships
        case .offerDiscountType: Self.offerDiscountTypes
        case .revocationType: Self.revocationTypes
        case .transactionReason: Self.transactionReasons
        case .billingPlanType: Self.billingPlanTypes
        case .currency: Self.currencies
        case .storefront: Self.storefronts
        }
    }

    private static let notificationTypes = [
        "CONSUMPTION_REQUEST", "DID_CHANGE_RENEWAL_PREF", "DID_CHANGE_RENEWAL_STATUS",
        "DID_FAIL_TO_RENEW", "DID_RENEW", "EXPIRED", "EXTERNAL_PURCHASE_TOKEN",
        "GRACE_PERIOD_EXPIRED", "METADATA_UPDATE", "MIGRATION", "OFFER_REDEEMED",
        "ONE_TIME_CHARGE", "PRICE_CHANGE", "PRICE_INCREASE", "REFUND", "REFUND_DECLINED",
        "REFUND_REVERSED", "RENEWAL_EXTENDED", "RENEWAL_EXTENSION", "RESCIND_CONSENT", "REVOKE",
        "SUBSCRIBED", "TEST",
    ]

    private static let subtypes = [
        "INITIAL_BUY", "RESUBSCRIBE", "DOWNGRADE", "UPGRADE", "AUTO_RENEW_ENABLED",
        "AUTO_RENEW_DISABLED", "VOLUNTARY", "BILLING_RETRY", "PRICE_INCREASE", "GRACE_PERIOD",
        "PENDING", "ACCEPTED", "BILLING_RECOVERY", "PRODUCT_NOT_FOR_SALE", "SUMMARY", "FAILURE",
        "UNREPORTED",
    ]

    private static let environments = ["Production", "Sandbox", "Xcode", "LocalTesting"]
    private static let consumptionRequestReasons = [
        "UNINTENDED_PURCHASE", "FULFILLMENT_ISSUE", "UNSATISFIED_WITH_PURCHASE", "LEGAL", "OTHER",
    ]
    private static let transactionTypes = [
        "Auto-Renewable Subscription", "Non-Consumable", "Consumable", "Non-Renewing Subscription",
    ]
    private static let ownerships = ["PURCHASED", "FAMILY_SHARED"]
    private static let offerDiscountTypes = ["FREE_TRIAL", "PAY_AS_YOU_GO", "PAY_UP_FRONT", "ONE_TIME"]
    private static let revocationTypes = ["REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE"]
    private static let transactionReasons = ["PURCHASE", "RENEWAL"]
    private static let billingPlanTypes = ["BILLED_UPFRONT", "MONTHLY"]

    private static let currencies = [
        "USD", "EUR", "GBP", "JPY", "CNY", "AUD", "CAD", "CHF", "KRW", "INR", "BRL", "MXN",
        "RUB", "TRY", "SEK", "NOK", "DKK", "PLN", "CZK", "HUF", "RON", "BGN", "ILS", "SAR",
        "AED", "QAR", "EGP", "NGN", "ZAR", "TZS", "KZT", "PKR", "IDR", "MYR", "PHP", "SGD",
        "THB", "TWD", "VND", "HKD", "NZD", "CLP", "COP", "PEN",
    ]

    private static let storefronts = [
        "USA", "GBR", "DEU", "FRA", "JPN", "CHN", "AUS", "CAN", "KOR", "BRA", "ITA", "ESP",
        "NLD", "RUS", "MEX", "IND", "CHE", "SWE", "TUR", "TWN", "HKG", "SGP", "POL", "BEL",
        "AUT", "NOR", "DNK", "IRL", "NZL", "SAU", "ARE", "ISR", "IDN", "THA", "MYS", "PHL",
        "VNM", "ZAF", "ARG", "CHL", "COL", "PRT", "FIN", "CZE", "UKR",
    ]

    /// The index of a raw value, or nil when it is written as a string.
    func index(of value: String) -> Int? {
        values.firstIndex(of: value)
    }
}
