/// Whether a transaction is a customer purchase or a system renewal.
///
/// Apple: [transactionReason](https://developer.apple.com/documentation/appstoreservernotifications/transactionreason)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct TransactionReason: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The customer bought the product (or upgraded, or an Ask to Buy was approved).
    public static let purchase = Self(rawValue: "PURCHASE")

    /// The App Store renewed the subscription.
    public static let renewal = Self(rawValue: "RENEWAL")
}
