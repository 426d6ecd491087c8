/// The body Apple POSTs to the notification URL: `{"signedPayload": "<JWS>"}`.
///
/// Apple: [responseBodyV2](https://developer.apple.com/documentation/appstoreservernotifications/responsebodyv2)
///
/// Every field is optional: Apple omits what does not apply, and the decoder does not decide
/// which fields a use needs.
public struct ResponseBodyV2: Hashable, Sendable {
    /// The notification as a compact JWS whose payload is a ``NotificationPayload``.
    public var signedPayload: String?

    /// Members this version does not know, verbatim; empty when Apple sent only known ones.
    public var unknownFields: [UnknownField] = []

    public init() {}
}
