/// The type of subscription offer.
///
/// Apple: [offerType](https://developer.apple.com/documentation/appstoreservernotifications/offertype)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct OfferType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) {
        self.rawValue = rawValue
    }

    public var description: String { String(rawValue) }

    /// An introductory offer.
    public static let introductory = Self(rawValue: 1)

    /// A promotional offer.
    public static let promotional = Self(rawValue: 2)

    /// An offer code.
    public static let offerCode = Self(rawValue: 3)

    /// A win-back offer.
    public static let winBack = Self(rawValue: 4)
}
