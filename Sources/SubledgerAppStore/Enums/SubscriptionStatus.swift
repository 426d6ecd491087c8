/// The status of an auto-renewable subscription when the notification was signed (`data.status`).
///
/// Apple: [status](https://developer.apple.com/documentation/appstoreservernotifications/status)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct SubscriptionStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public var description: String { String(rawValue) }

    /// Active.
    public static let active = Self(rawValue: 1)

    /// Expired.
    public static let expired = Self(rawValue: 2)

    /// In the billing retry period.
    public static let billingRetry = Self(rawValue: 3)

    /// In the billing grace period.
    public static let billingGracePeriod = Self(rawValue: 4)

    /// Revoked (refunded or no longer family-shared).
    public static let revoked = Self(rawValue: 5)
}
