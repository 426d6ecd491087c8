/// Why a subscription expired.
///
/// Apple: [expirationIntent](https://developer.apple.com/documentation/appstoreservernotifications/expirationintent)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct ExpirationIntent: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public var description: String { String(rawValue) }

    /// The customer cancelled.
    public static let customerCancelled = Self(rawValue: 1)

    /// A billing error.
    public static let billingError = Self(rawValue: 2)

    /// The customer did not consent to a price increase.
    public static let customerDidNotConsentToPriceIncrease = Self(rawValue: 3)

    /// The product was not available for purchase at renewal.
    public static let productNotAvailable = Self(rawValue: 4)

    /// Another reason.
    public static let other = Self(rawValue: 5)
}
