/// One business fact derived from an App Store Server Notification (V2) or from a signed
/// transaction fed from transaction history.
///
/// The raw value is the type's stable code in the binary encoding: never renumber a case and
/// never reuse a retired code. Every case has a page in the `Events/` catalog, and a test keeps
/// the catalog, the codes, the versions and the notification table in step.
public enum EventType: UInt16, CaseIterable, Hashable, Sendable {
    case subscriptionStarted = 1
    case resubscribed = 2
    case renewed = 3
    case commitmentPeriodBilled = 4
    case renewalFailed = 5
    case gracePeriodExpired = 6
    case expired = 7
    case renewalStatusChanged = 8
    case renewalPreferenceChanged = 9
    case priceIncrease = 10
    case refunded = 11
    case refundDeclined = 12
    case refundReversed = 13
    case revoked = 14
    case offerRedeemed = 15
    case renewalExtended = 16
    case renewalExtensionSummary = 17
    case oneTimePurchase = 18
    case consumptionRequested = 19
    case test = 20
    case externalPurchaseToken = 21
    case metadataUpdated = 22
    case migrated = 23
    case priceChanged = 24
    case consentRescinded = 25
    case transactionBackfilled = 26
    case unrecognizedNotification = 27
    case renewalInfoBackfilled = 28

    /// The type's code in the binary encoding.
    public var code: UInt16 { rawValue }

    /// The type for an encoded code, or nil when this build does not know it.
    public init?(code: UInt16) {
        self.init(rawValue: code)
    }

    /// The version new events of this type are written in. The decoder reads every version from
    /// 1 up to this one and upcasts it to the current model (see `Events/README.md`).
    public var currentVersion: UInt8 {
        switch self {
        // A type that gets a version 2 gets its own case here.
        default: 1
        }
    }

    /// The stable name used in the catalog (`Events/<name>.md`) and in JSON output.
    public var name: String {
        switch self {
        case .subscriptionStarted: "subscriptionStarted"
        case .resubscribed: "resubscribed"
        case .renewed: "renewed"
        case .commitmentPeriodBilled: "commitmentPeriodBilled"
        case .renewalFailed: "renewalFailed"
        case .gracePeriodExpired: "gracePeriodExpired"
        case .expired: "expired"
        case .renewalStatusChanged: "renewalStatusChanged"
        case .renewalPreferenceChanged: "renewalPreferenceChanged"
        case .priceIncrease: "priceIncrease"
        case .refunded: "refunded"
        case .refundDeclined: "refundDeclined"
        case .refundReversed: "refundReversed"
        case .revoked: "revoked"
        case .offerRedeemed: "offerRedeemed"
        case .renewalExtended: "renewalExtended"
        case .renewalExtensionSummary: "renewalExtensionSummary"
        case .oneTimePurchase: "oneTimePurchase"
        case .consumptionRequested: "consumptionRequested"
        case .test: "test"
        case .externalPurchaseToken: "externalPurchaseToken"
        case .metadataUpdated: "metadataUpdated"
        case .migrated: "migrated"
        case .priceChanged: "priceChanged"
        case .consentRescinded: "consentRescinded"
        case .transactionBackfilled: "transactionBackfilled"
        case .unrecognizedNotification: "unrecognizedNotification"
        case .renewalInfoBackfilled: "renewalInfoBackfilled"
        }
    }

    /// The type with this stable name, or nil.
    public init?(name: String) {
        guard let type = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = type
    }
}

extension EventType: CustomStringConvertible {
    public var description: String { name }
}
