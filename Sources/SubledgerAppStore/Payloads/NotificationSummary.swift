import SubledgerEvents

/// The outcome of a mass subscription-renewal-date extension request.
///
/// Apple: [summary](https://developer.apple.com/documentation/appstoreservernotifications/summary)
///
/// Every field is optional: Apple omits what does not apply, and the decoder does not decide
/// which fields a use needs.
public struct NotificationSummary: Hashable, Sendable {
    /// The identifier the developer gave the extension request.
    public var requestIdentifier: String?

    /// The environment the notification applies to.
    public var environment: AppStoreEnvironment?

    /// The app's App Store identifier.
    public var appAppleId: Int64?

    /// The app's bundle identifier.
    public var bundleId: String?

    /// The subscription product the extension applies to.
    public var productId: String?

    /// The storefronts (ISO 3166-1 alpha-3) the extension was limited to.
    public var storefrontCountryCodes: [String]?

    /// How many subscriptions failed to receive the extension.
    public var failedCount: Int64?

    /// How many subscriptions received the extension.
    public var succeededCount: Int64?

    /// Members this version does not know, verbatim; empty when Apple sent only known ones.
    public var unknownFields: [UnknownField] = []

    public init() {}
}
