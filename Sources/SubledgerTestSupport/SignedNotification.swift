import SubledgerAppStore

/// A notification signed the way the App Store signs it.
public struct SignedNotification: Sendable {
    /// The notification as signed; its `data` holds the nested JWS strings.
    public let payload: NotificationPayload
    /// The compact JWS of `payload`: what Apple puts in `signedPayload`.
    public let signedPayload: String

    /// The body Apple POSTs, `{"signedPayload":"<JWS>"}`; with a trailing newline, one line of
    /// an ingest file.
    public var webhookBody: [UInt8] {
        var body = ResponseBodyV2()
        body.signedPayload = signedPayload
        return body.jsonBytes()
    }
}
