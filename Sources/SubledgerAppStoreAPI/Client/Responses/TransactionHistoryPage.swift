/// One page of Get Transaction History v2 (up to 20 signed transactions).
public struct TransactionHistoryPage: Decodable, Sendable {
    /// Pass it back for the next page while `hasMore`.
    public var revision: String?
    public var hasMore: Bool?
    public var bundleId: String?
    public var appAppleId: Int64?
    public var environment: String?
    public var signedTransactions: [String]?
}
