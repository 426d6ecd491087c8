/// How a subscription with a 12-month commitment is billed (2026).
///
/// Apple: [billingPlanType](https://developer.apple.com/documentation/appstoreservernotifications/billingplantype)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct BillingPlanType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The whole commitment is billed at once.
    public static let billedUpfront = Self(rawValue: "BILLED_UPFRONT")

    /// The commitment is billed month by month.
    public static let monthly = Self(rawValue: "MONTHLY")
}
