/// Get Test Notification Status: the TEST notification and Apple's attempts to deliver it.
public struct TestNotificationStatus: Decodable, Sendable {
    public var signedPayload: String?
    public var sendAttempts: [SendAttempt]?
}
