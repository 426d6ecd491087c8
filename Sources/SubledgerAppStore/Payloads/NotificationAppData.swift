import SubledgerEvents

/// App metadata and the signed app transaction of a RESCIND_CONSENT notification.
///
/// Apple: [appData](https://developer.apple.com/documentation/appstoreservernotifications/appdata)
///
/// Every field is optional: Apple omits what does not apply, and the decoder does not decide
/// which fields a use needs.
public struct NotificationAppData: Hashable, Sendable {
    /// The app's App Store identifier; absent in the sandbox.
    public var appAppleId: Int64?

    /// The app's bundle identifier.
    public var bundleId: String?

    /// The environment the notification applies to.
    public var environment: AppStoreEnvironment?

    /// The app transaction as a compact JWS.
    public var signedAppTransactionInfo: String?

    /// Members this version does not know, verbatim; empty when Apple sent only known ones.
    public var unknownFields: [UnknownField] = []

    public init() {}
}
