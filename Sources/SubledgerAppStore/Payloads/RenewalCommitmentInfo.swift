/// How a 12-month commitment renews when it ends (2026).
///
/// Apple: [RenewalCommitmentInfo](https://developer.apple.com/documentation/appstoreservernotifications/renewalcommitmentinfo)
///
/// Every field is optional: Apple omits what does not apply, and the decoder does not decide
/// which fields a use needs. Identifiers are strings and amounts milliunits, as Apple sends them.
/// Dates are epoch milliseconds; the fractional milliseconds of Xcode-signed data are rounded
/// down (floor), so a date never moves later than the instant Apple wrote.
public struct RenewalCommitmentInfo: Hashable, Sendable {
    /// The product the commitment renews into.
    public var commitmentAutoRenewProductId: String?

    /// Whether the commitment renews automatically.
    public var commitmentAutoRenewStatus: AutoRenewStatus?

    /// How the renewed commitment is billed.
    public var commitmentRenewalBillingPlanType: BillingPlanType?

    /// When the commitment renews, epoch milliseconds.
    public var commitmentRenewalDate: Int64?

    /// The price of the renewed commitment, in milliunits.
    public var commitmentRenewalPrice: Int64?

    /// Members this version does not know, verbatim; empty when Apple sent only known ones.
    public var unknownFields: [UnknownField] = []

    public init() {}
}
