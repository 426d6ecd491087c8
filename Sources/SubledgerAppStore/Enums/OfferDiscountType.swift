/// The payment mode of a subscription offer.
///
/// Apple: [offerDiscountType](https://developer.apple.com/documentation/appstoreservernotifications/offerdiscounttype)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct OfferDiscountType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// A free trial.
    public static let freeTrial = Self(rawValue: "FREE_TRIAL")

    /// A discounted price for each period.
    public static let payAsYouGo = Self(rawValue: "PAY_AS_YOU_GO")

    /// One discounted payment for the whole offer duration.
    public static let payUpFront = Self(rawValue: "PAY_UP_FRONT")

    /// A one-time offer (Advanced Commerce).
    public static let oneTime = Self(rawValue: "ONE_TIME")
}
