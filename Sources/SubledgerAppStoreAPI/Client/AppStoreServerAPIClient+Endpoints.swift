import SubledgerCore

extension AppStoreServerAPIClient {
    /// Get Notification History: one page of the notifications Apple sent (or tried to send)
    /// between `start` and `end` (epoch milliseconds).
    public func notificationHistory(start: Int64, end: Int64, paginationToken: String?) throws(AppStoreAPIError) -> NotificationHistoryPage {
        let body = JSON.object([("startDate", .integer(start)), ("endDate", .integer(end))]).bytes
        return try call("notificationHistory", .post, path: "/inApps/v1/notifications/history",
                        query: paginationToken.map { [("paginationToken", $0)] } ?? [], body: body, as: NotificationHistoryPage.self)
    }

    /// Get Transaction History v2: one page of the customer's transactions, oldest first.
    public func transactionHistory(transactionId: String, revision: String?) throws(AppStoreAPIError) -> TransactionHistoryPage {
        var query = [("sort", "ASCENDING")]
        if let revision { query.append(("revision", revision)) }
        return try call("transactionHistory", .get, path: "/inApps/v2/history/\(Self.percentEncoded(transactionId))", query: query, as: TransactionHistoryPage.self)
    }

    /// Get All Subscription Statuses for the customer of any of their transaction ids. An
    /// answer without `data` is refused: read as no status, `{}` was a state Apple never gave.
    public func subscriptionStatuses(transactionId: String) throws(AppStoreAPIError) -> SubscriptionStatuses {
        let statuses = try call("subscriptionStatuses", .get, path: "/inApps/v1/subscriptions/\(Self.percentEncoded(transactionId))", as: SubscriptionStatuses.self)
        guard statuses.data != nil else {
            throw .invalidResponse(endpoint: "subscriptionStatuses", detail: "an answer without data, so the subscription's latest state is unknown (Apple always sends it, empty or not)")
        }
        return statuses
    }

    /// Request a Test Notification; returns its token.
    public func requestTestNotification() throws(AppStoreAPIError) -> String {
        struct Answer: Decodable { var testNotificationToken: String? }
        let answer = try call("requestTestNotification", .post, path: "/inApps/v1/notifications/test", body: [], as: Answer.self)
        guard let token = answer.testNotificationToken else {
            throw .invalidResponse(endpoint: "requestTestNotification", detail: "no testNotificationToken")
        }
        return token
    }

    /// Get Test Notification Status.
    public func testNotificationStatus(token: String) throws(AppStoreAPIError) -> TestNotificationStatus {
        try call("testNotificationStatus", .get, path: "/inApps/v1/notifications/test/\(Self.percentEncoded(token))", as: TestNotificationStatus.self)
    }
}
