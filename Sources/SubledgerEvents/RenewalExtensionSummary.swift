/// The `summary` of a RENEWAL_EXTENSION notification: the outcome of a mass renewal-date
/// extension request.
public struct RenewalExtensionSummary: Hashable, Sendable {
    public var requestIdentifier: String?
    public var productId: String?
    public var succeededCount: Int?
    public var failedCount: Int?

    public init(
        requestIdentifier: String? = nil, productId: String? = nil,
        succeededCount: Int? = nil, failedCount: Int? = nil
    ) {
        self.requestIdentifier = requestIdentifier
        self.productId = productId
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }
}
