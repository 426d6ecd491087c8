/// The reason the customer gave when requesting a refund.
///
/// Apple: [consumptionRequestReason](https://developer.apple.com/documentation/appstoreservernotifications/consumptionrequestreason)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct ConsumptionRequestReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The customer did not mean to buy it.
    public static let unintendedPurchase = Self(rawValue: "UNINTENDED_PURCHASE")

    /// The customer did not receive the item or could not use it.
    public static let fulfillmentIssue = Self(rawValue: "FULFILLMENT_ISSUE")

    /// The customer was not satisfied with it.
    public static let unsatisfiedWithPurchase = Self(rawValue: "UNSATISFIED_WITH_PURCHASE")

    /// A legal reason.
    public static let legal = Self(rawValue: "LEGAL")

    /// Another reason.
    public static let other = Self(rawValue: "OTHER")
}
