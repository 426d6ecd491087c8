/// Whether the customer bought the item or has it through Family Sharing.
///
/// Apple: [inAppOwnershipType](https://developer.apple.com/documentation/appstoreservernotifications/inappownershiptype)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
public struct InAppOwnershipType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public var description: String { rawValue }

    /// The customer bought it.
    public static let purchased = Self(rawValue: "PURCHASED")

    /// A family member shares it with the customer; never revenue.
    public static let familyShared = Self(rawValue: "FAMILY_SHARED")
}
