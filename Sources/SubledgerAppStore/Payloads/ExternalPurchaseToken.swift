/// An external purchase token that was not reported to Apple in time.
///
/// Apple: [externalPurchaseToken](https://developer.apple.com/documentation/appstoreservernotifications/externalpurchasetoken)
///
/// Every field is optional: Apple omits what does not apply, and the decoder does not decide
/// which fields a use needs. Identifiers are strings and amounts milliunits, as Apple sends them.
/// Dates are epoch milliseconds; the fractional milliseconds of Xcode-signed data are rounded
/// down (floor), so a date never moves later than the instant Apple wrote.
public struct ExternalPurchaseToken: Hashable, Sendable {
    /// Unique identifier of the token.
    public var externalPurchaseId: String?

    /// When the token was created, epoch milliseconds.
    public var tokenCreationDate: Int64?

    /// When the token expires, epoch milliseconds; only for custom link tokens.
    public var tokenExpirationDate: Int64?

    /// The kind of custom link token.
    public var tokenType: ExternalPurchaseTokenType?

    /// The app's App Store identifier.
    public var appAppleId: Int64?

    /// The app's bundle identifier.
    public var bundleId: String?

    /// Members this version does not know, verbatim; empty when Apple sent only known ones.
    public var unknownFields: [UnknownField] = []

    public init() {}
}
