/// Get All Subscription Statuses: per subscription group, the latest transaction and renewal
/// info of each of the customer's subscriptions.
public struct SubscriptionStatuses: Decodable, Sendable {
    public struct Group: Decodable, Sendable {
        public var subscriptionGroupIdentifier: String?
        public var lastTransactions: [LastTransaction]?
    }

    public struct LastTransaction: Decodable, Sendable {
        public var originalTransactionId: String?
        /// Apple's status: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
        public var status: Int?
        public var signedTransactionInfo: String?
        public var signedRenewalInfo: String?
    }

    public var environment: String?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var data: [Group]?
}
