/// A version 2 App Store Server Notification: the decoded payload of `signedPayload`.
///
/// Apple: [responseBodyV2DecodedPayload](https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2decodedpayload)
///
/// Every field is optional: Apple omits what does not apply, and the decoder does not decide
/// which fields a use needs. Identifiers are strings and amounts milliunits, as Apple sends them.
/// Dates are epoch milliseconds; the fractional milliseconds of Xcode-signed data are rounded
/// down (floor), so a date never moves later than the instant Apple wrote.
public struct NotificationPayload: Hashable, Sendable {
    /// The event that caused the notification.
    public var notificationType: NotificationType?

    /// Details of the event, present only for some notification types.
    public var subtype: NotificationSubtype?

    /// Unique identifier of the notification; retries of the same notification keep it.
    public var notificationUUID: String?

    /// The notification version, `"2.0"`.
    public var version: String?

    /// When the App Store signed the notification, epoch milliseconds. Absent in some early-2022
    /// notifications.
    public var signedDate: Int64?

    /// App metadata and the signed transaction and renewal info. Exclusive with `summary`,
    /// `externalPurchaseToken` and `appData`.
    public var data: NotificationData?

    /// The result of a mass renewal-date extension (RENEWAL_EXTENSION / SUMMARY).
    public var summary: NotificationSummary?

    /// An external purchase token (EXTERNAL_PURCHASE_TOKEN).
    public var externalPurchaseToken: ExternalPurchaseToken?

    /// App metadata and the signed app transaction (RESCIND_CONSENT).
    public var appData: NotificationAppData?

    /// Members this version does not know, verbatim; empty when Apple sent only known ones.
    public var unknownFields: [UnknownField] = []

    public init() {}
}
