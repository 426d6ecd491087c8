/// Where a transaction stands in a 12-month commitment (2026).
///
/// Apple: [TransactionCommitmentInfo](https://developer.apple.com/documentation/appstoreservernotifications/transactioncommitmentinfo)
///
/// Every field is optional: Apple omits what does not apply, and the decoder does not decide
/// which fields a use needs. Identifiers are strings and amounts milliunits, as Apple sends them.
/// Dates are epoch milliseconds; the fractional milliseconds of Xcode-signed data are rounded
/// down (floor), so a date never moves later than the instant Apple wrote.
public struct TransactionCommitmentInfo: Hashable, Sendable {
    /// Which billing period of the commitment this is, 1 to `totalBillingPeriods`.
    public var billingPeriodNumber: Int?

    /// How many billing periods the commitment has.
    public var totalBillingPeriods: Int?

    /// When the commitment ends, epoch milliseconds.
    public var commitmentExpiresDate: Int64?

    /// The total price of the whole commitment, in milliunits of the transaction's currency.
    public var commitmentPrice: Int64?

    /// Members this version does not know, verbatim; empty when Apple sent only known ones.
    public var unknownFields: [UnknownField] = []

    public init() {}
}
