/// Whether a subscription renews automatically.
///
/// Apple: [autoRenewStatus](https://developer.apple.com/documentation/appstoreservernotifications/autorenewstatus)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct AutoRenewStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public var description: String { String(rawValue) }

    /// Automatic renewal is off.
    public static let off = Self(rawValue: 0)

    /// Automatic renewal is on.
    public static let on = Self(rawValue: 1)
}
