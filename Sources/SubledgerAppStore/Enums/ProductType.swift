/// The type of an in-app purchase.
///
/// Apple: [type](https://developer.apple.com/documentation/appstoreservernotifications/type)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct ProductType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// An auto-renewable subscription.
    public static let autoRenewableSubscription = Self(rawValue: "Auto-Renewable Subscription")

    /// A non-consumable in-app purchase.
    public static let nonConsumable = Self(rawValue: "Non-Consumable")

    /// A consumable in-app purchase.
    public static let consumable = Self(rawValue: "Consumable")

    /// A non-renewing subscription.
    public static let nonRenewingSubscription = Self(rawValue: "Non-Renewing Subscription")
}
