import SubledgerEvents

/// App metadata and the signed transaction and renewal information of a notification.
///
/// Apple: [data](https://developer.apple.com/documentation/appstoreservernotifications/data)
///
/// Every field is optional: Apple omits what does not apply, and the decoder does not decide
/// which fields a use needs.
public struct NotificationData: Hashable, Sendable {
    /// The app's App Store identifier; absent in the sandbox.
    public var appAppleId: Int64?

    /// The app's bundle identifier.
    public var bundleId: String?

    /// The app build version (`CFBundleVersion`).
    public var bundleVersion: String?

    /// The environment the notification applies to.
    public var environment: AppStoreEnvironment?

    /// The transaction as a compact JWS whose payload is a ``TransactionPayload``.
    public var signedTransactionInfo: String?

    /// The renewal information as a compact JWS whose payload is a ``RenewalInfoPayload``.
    public var signedRenewalInfo: String?

    /// The subscription's status when the notification was signed.
    public var status: SubscriptionStatus?

    /// The reason the customer gave for a refund request (CONSUMPTION_REQUEST).
    public var consumptionRequestReason: ConsumptionRequestReason?

    /// Members this version does not know, verbatim; empty when Apple sent only known ones.
    public var unknownFields: [UnknownField] = []

    public init() {}
}
