/// One page of Get Notification History (up to 20 notifications).
public struct NotificationHistoryPage: Decodable, Sendable {
    public struct Item: Decodable, Sendable {
        /// The notification's JWS, exactly as the webhook would have received it.
        public var signedPayload: String?
        public var sendAttempts: [SendAttempt]?
    }

    public var notificationHistory: [Item]?
    public var hasMore: Bool?
    /// Pass it back for the next page while `hasMore`.
    public var paginationToken: String?
}
