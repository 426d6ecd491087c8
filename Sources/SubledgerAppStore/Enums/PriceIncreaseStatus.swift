/// Whether the customer responded to a price increase that needs consent.
///
/// Apple: [priceIncreaseStatus](https://developer.apple.com/documentation/appstoreservernotifications/priceincreasestatus)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct PriceIncreaseStatus: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public var description: String { String(rawValue) }

    /// The customer has not responded.
    public static let customerHasNotResponded = Self(rawValue: 0)

    /// The customer consented, or was notified of an increase that needs no consent.
    public static let customerConsentedOrWasNotified = Self(rawValue: 1)
}
