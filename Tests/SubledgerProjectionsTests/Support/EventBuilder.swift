import SubledgerEvents
import SubledgerLog
import SubledgerProjections

/// Epoch milliseconds of `day` (`YYYY-MM-DD`) plus hours and minutes, UTC.
func at(_ day: String, _ hours: Int = 0, _ minutes: Int = 0) -> Int64 {
    UTCDay(day)!.start + Int64(hours) * 3_600_000 + Int64(minutes) * 60_000
}

let minute: Int64 = 60_000
let hour: Int64 = 3_600_000
let day: Int64 = 86_400_000

/// A subscription as Apple describes it: builds its signed transactions and renewal infos.
struct Subscriber {
    var originalTransactionId: String
    var productId = "pro.monthly"
    var group = "group.pro"
    var token: String?
    var price: Int64 = 9990
    var currency = "USD"
    var storefront = "USA"
    var ownership = "PURCHASED"
    var environment = AppStoreEnvironment.production

    init(_ originalTransactionId: String, token: String? = nil) {
        self.originalTransactionId = originalTransactionId
        self.token = token
    }

    /// A transaction of this subscription; `signed` defaults to the purchase date.
    func transaction(
        _ transactionId: String, purchased: Int64, expires: Int64?, price: Int64? = nil, product: String? = nil,
        trial: Bool = false, offerType: Int? = nil, signed: Int64? = nil
    ) -> TransactionFacts {
        TransactionFacts(
            transactionId: transactionId, originalTransactionId: originalTransactionId,
            webOrderLineItemId: nil, productId: product ?? productId, subscriptionGroupIdentifier: group,
            type: "Auto-Renewable Subscription", purchaseDate: purchased, originalPurchaseDate: nil,
            expiresDate: expires, signedDate: signed ?? purchased, price: trial ? 0 : (price ?? self.price),
            currency: currency, storefront: storefront, offerType: trial ? 1 : offerType,
            offerDiscountType: trial ? "FREE_TRIAL" : nil, ownership: ownership, appAccountToken: token,
            transactionReason: "PURCHASE")
    }

    func renewal(
        signed: Int64, autoRenew: Bool = true, autoRenewProduct: String? = nil, expirationIntent: Int? = nil,
        billingRetry: Bool? = nil, graceEnds: Int64? = nil, priceIncreaseStatus: Int? = nil
    ) -> RenewalFacts {
        RenewalFacts(
            originalTransactionId: originalTransactionId, productId: productId,
            autoRenewProductId: autoRenewProduct ?? productId, autoRenewStatus: autoRenew ? 1 : 0,
            expirationIntent: expirationIntent, isInBillingRetryPeriod: billingRetry,
            gracePeriodExpiresDate: graceEnds, priceIncreaseStatus: priceIncreaseStatus, signedDate: signed)
    }
}

extension TransactionFacts {
    /// This transaction as Apple signs it once refunded at `instant`, prorated when given a
    /// `percentage` (in thousandths of a percent, as Apple gives it).
    func refunded(at instant: Int64, percentage: Int? = nil) -> TransactionFacts {
        var refunded = self
        refunded.revocationDate = instant
        refunded.revocationType = percentage == nil ? "REFUND_FULL" : "REFUND_PRORATED"
        refunded.revocationPercentage = percentage
        refunded.signedDate = instant
        return refunded
    }
}

/// Builds notification events the way the mapper does (classification by Apple's type).
/// Each notification's UUID is derived from its content, so separately built notifications
/// never collide and a notification built twice is the same notification.
struct Notifier {
    static func uuid(for content: String) -> String {
        var high: UInt64 = 0xcbf2_9ce4_8422_2325
        var low: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in content.utf8 {
            high = (high ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            low = (low ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 &+ 1
        }
        let hex = String(high, radix: 16).leftPadded(16) + String(low, radix: 16).leftPadded(16)
        let characters = Array(hex)
        return [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { String(characters[$0]) }.joined(separator: "-")
    }

    /// A notification signed at `signed`; the transaction and renewal keep their own signed
    /// dates when set, else are signed at the same instant.
    mutating func notification(
        _ type: String, _ subtype: String? = nil, signed: Int64, transaction: TransactionFacts? = nil,
        renewal: RenewalFacts? = nil, environment: AppStoreEnvironment = .production, uuid: String? = nil
    ) -> Event {
        var transaction = transaction
        if transaction != nil, transaction?.signedDate == nil { transaction?.signedDate = signed }
        var renewal = renewal
        if renewal != nil, renewal?.signedDate == nil { renewal?.signedDate = signed }
        let monthly = transaction?.billingPlanType == "MONTHLY" && transaction?.commitment != nil
        return Event(
            type: EventType.classify(notificationType: type, subtype: subtype, isMonthlyCommitmentRenewal: monthly),
            effectiveAt: signed, evidence: EvidenceRef(position: 0, length: 0),
            notificationUUID: uuid ?? Self.uuid(for: "\(type)|\(subtype ?? "")|\(signed)|\(environment)|\(String(describing: transaction))|\(String(describing: renewal))"),
            notificationType: type, subtype: subtype, environment: environment, transaction: transaction,
            renewal: renewal)
    }

    /// A bare signed renewal info fed from Get All Subscription Statuses.
    func backfill(_ renewal: RenewalFacts, environment: AppStoreEnvironment = .production) -> Event {
        Event(
            type: .renewalInfoBackfilled, effectiveAt: renewal.signedDate!, evidence: EvidenceRef(position: 0, length: 0),
            environment: environment, renewal: renewal)
    }

    /// A bare signed transaction fed from transaction history.
    func backfill(_ transaction: TransactionFacts, environment: AppStoreEnvironment = .production) -> Event {
        Event(
            type: .transactionBackfilled, effectiveAt: transaction.signedDate!, evidence: EvidenceRef(position: 0, length: 0),
            environment: environment, transaction: transaction)
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

/// Folds events at increasing positions, as the log would hold them.
struct TestLedger {
    var projection = Projection()
    private(set) var positions: [LogPosition] = []
    private var next: UInt64 = 1000

    init(_ events: [Event] = []) {
        for event in events { post(event) }
    }

    /// Folds `event` at the next position (positions grow by 100) and returns that position.
    @discardableResult
    mutating func post(_ event: Event) -> LogPosition {
        let position = LogPosition(rawValue: next)
        next += 100
        positions.append(position)
        projection.apply(ProjectionInput(position: position, recordedAtMillis: event.effectiveAt + 1000, event: event))
        return position
    }

    func customer(_ id: String, at instant: Int64, atPosition: LogPosition? = nil, catalog: ProductCatalog? = nil) -> CustomerState? {
        projection.customer(id, asOf: instant, atPosition: atPosition, catalog: catalog)
    }

    /// The only subscription of customer `id` at `instant`.
    func subscription(_ id: String, at instant: Int64) -> SubscriptionState? {
        customer(id, at: instant)?.subscriptions.first
    }
}
