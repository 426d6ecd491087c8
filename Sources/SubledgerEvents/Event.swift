/// A domain event: one business fact, the envelope that places it in time and points at its
/// signed evidence, and the Apple facts it carries.
///
/// Apple's enumerations are kept as raw values (`String` or `Int`) because Apple adds values
/// over time; an unknown value is stored and replayed verbatim, never rejected.
public struct Event: Hashable, Sendable {
    public var type: EventType
    /// The signed instant that orders the fact, in epoch milliseconds: the notification's
    /// `signedDate`, or the transaction's `signedDate` for a backfilled transaction.
    public var effectiveAt: Int64
    /// Where the verbatim signed message this event was derived from is stored.
    public var evidence: EvidenceRef
    /// The notification's `notificationUUID`, verbatim.
    public var notificationUUID: String?
    /// The raw `notificationType`, verbatim even when this build does not know it.
    public var notificationType: String?
    /// The raw `subtype`, verbatim.
    public var subtype: String?
    /// `data.environment` (or the transaction's `environment` for a backfill).
    public var environment: AppStoreEnvironment?
    /// `data.status`: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
    public var status: Int?
    /// `data.consumptionRequestReason` of a CONSUMPTION_REQUEST.
    public var consumptionRequestReason: String?
    /// The decoded `signedTransactionInfo`.
    public var transaction: TransactionFacts?
    /// The decoded `signedRenewalInfo`.
    public var renewal: RenewalFacts?
    /// The `summary` of a RENEWAL_EXTENSION notification.
    public var renewalExtensionSummary: RenewalExtensionSummary?
    /// The `externalPurchaseToken` of an EXTERNAL_PURCHASE_TOKEN notification.
    public var externalPurchaseToken: ExternalPurchaseTokenFacts?

    public init(
        type: EventType,
        effectiveAt: Int64,
        evidence: EvidenceRef,
        notificationUUID: String? = nil,
        notificationType: String? = nil,
        subtype: String? = nil,
        environment: AppStoreEnvironment? = nil,
        status: Int? = nil,
        consumptionRequestReason: String? = nil,
        transaction: TransactionFacts? = nil,
        renewal: RenewalFacts? = nil,
        renewalExtensionSummary: RenewalExtensionSummary? = nil,
        externalPurchaseToken: ExternalPurchaseTokenFacts? = nil
    ) {
        self.type = type
        self.effectiveAt = effectiveAt
        self.evidence = evidence
        self.notificationUUID = notificationUUID
        self.notificationType = notificationType
        self.subtype = subtype
        self.environment = environment
        self.status = status
        self.consumptionRequestReason = consumptionRequestReason
        self.transaction = transaction
        self.renewal = renewal
        self.renewalExtensionSummary = renewalExtensionSummary
        self.externalPurchaseToken = externalPurchaseToken
    }
}
