/// The kind of an external purchase custom link token.
///
/// Apple: [tokenType](https://developer.apple.com/documentation/appstoreservernotifications/tokentype)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct ExternalPurchaseTokenType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// A token for acquiring a new customer.
    public static let acquisition = Self(rawValue: "ACQUISITION")

    /// A token for services to an existing customer.
    public static let services = Self(rawValue: "SERVICES")
}
