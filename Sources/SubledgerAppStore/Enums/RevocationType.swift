/// How a transaction was revoked.
///
/// Apple: [revocationType](https://developer.apple.com/documentation/appstoreservernotifications/revocationtype)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct RevocationType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The App Store refunded the whole transaction.
    public static let refundFull = Self(rawValue: "REFUND_FULL")

    /// The App Store refunded part of the transaction (see `revocationPercentage`).
    public static let refundProrated = Self(rawValue: "REFUND_PRORATED")

    /// The purchase is no longer shared through Family Sharing.
    public static let familyRevoke = Self(rawValue: "FAMILY_REVOKE")
}
