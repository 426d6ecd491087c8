/// Why the App Store refunded or revoked a transaction.
///
/// Apple: [revocationReason](https://developer.apple.com/documentation/appstoreservernotifications/revocationreason)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct RevocationReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public var description: String { String(rawValue) }

    /// Another reason, such as an accidental purchase.
    public static let other = Self(rawValue: 0)

    /// An actual or perceived issue within the app.
    public static let appIssue = Self(rawValue: 1)
}
