import SubledgerAppStore

/// A notification the simulation decided on, before signing: the payload with its nested
/// transaction and renewal info still as values.
struct Notice: Sendable {
    /// Sort key: `signedDate`, then the customer, then the order the customer's simulation
    /// produced it in.
    var customer: Int
    var sequence: Int32
    var notification: NotificationPayload
    var transaction: TransactionPayload?
    var renewalInfo: RenewalInfoPayload?

    var signedDate: Int64 { notification.signedDate ?? 0 }
}

/// Why a subscription's access ended, as the churn report's `byReason` keys name it.
enum EndReason: Int, CaseIterable, Sendable {
    case voluntary
    case billingError
    case priceIncrease
    case productNotForSale
    case refund
    case other

    var key: String {
        switch self {
        case .voluntary: "voluntary"
        case .billingError: "billing_error"
        case .priceIncrease: "price_increase"
        case .productNotForSale: "product_not_for_sale"
        case .refund: "refund"
        case .other: "other"
        }
    }
}

/// What a paid period is worth in MRR: the transaction's price normalised to a month.
struct Billing: Equatable, Sendable {
    var currency: Currency
    var price: Int64
    /// The price's monthly value in twelfths of the price (P1M 12, P3M 4, P1Y 1, …), so MRR sums
    /// stay exact integers until the final rounding.
    var twelfths: Int64
    /// `(billingPeriodNumber, totalBillingPeriods)` of a monthly-with-commitment transaction.
    var commitment: (period: Int, total: Int)?

    static func == (lhs: Billing, rhs: Billing) -> Bool {
        lhs.currency == rhs.currency && lhs.price == rhs.price && lhs.twelfths == rhs.twelfths
            && lhs.commitment?.period == rhs.commitment?.period && lhs.commitment?.total == rhs.commitment?.total
    }

    /// The contract's MRR normalisation of `transaction`: ×1 for a monthly-with-commitment plan,
    /// else by its period, taken from `expiresDate − purchaseDate` rounded to the nearest of P1W,
    /// P1M, P2M, P3M, P6M, P1Y (7, 30, 60, 91, 182, 365 days). The ledger, without a catalog,
    /// reads a renewal recovered in grace from the renewal date it missed; the simulator recovers
    /// in grace only in its first week, where both readings agree.
    init(of transaction: TransactionPayload, currency: Currency) {
        self.currency = currency
        price = transaction.price ?? 0
        if transaction.billingPlanType == .monthly, let info = transaction.commitmentInfo {
            twelfths = 12
            commitment = (info.billingPeriodNumber ?? 0, info.totalBillingPeriods ?? 0)
        } else {
            let days = Double((transaction.expiresDate ?? 0) - (transaction.purchaseDate ?? 0)) / Double(UTC.millisecondsPerDay)
            let periods: [(days: Double, twelfths: Int64)] = [(7, 52), (30, 12), (60, 6), (91, 4), (182, 2), (365, 1)]
            twelfths = periods.min { abs($0.days - days) < abs($1.days - days) }!.twelfths
            commitment = nil
        }
    }
}

/// Access to a purchased subscription from an instant on.
enum Access: Equatable, Sendable {
    /// Not entitled; why the last access ended.
    case none(EndReason)
    /// In a free trial.
    case trial(Currency)
    /// In a paid period.
    case paid(Billing)
    /// In a billing grace period, still worth the last paid period.
    case grace(Billing)

    var isEntitled: Bool {
        if case .none = self { return false }
        return true
    }

    /// Entitled and paid: what MRR and `activeAtStart` count.
    var billing: Billing? {
        switch self {
        case .paid(let billing), .grace(let billing): billing
        case .none, .trial: nil
        }
    }
}

/// The simulation's own record of one purchased subscription, from which MRR and churn are
/// computed: when access changed and what each purchase was.
struct SubscriptionHistory: Sendable {
    struct Change: Sendable {
        var at: Int64
        var access: Access
    }

    struct Purchase: Sendable {
        var at: Int64
        var isTrial: Bool
        /// `billingPeriodNumber` when the purchase is a commitment period.
        var commitmentPeriod: Int?
    }

    private(set) var changes: [Change] = []
    private(set) var purchases: [Purchase] = []

    /// Records access from `at` on. A change between two kinds of no access keeps the first
    /// reason: a grace period that ran out ended access, the later EXPIRED only confirms it.
    mutating func set(_ access: Access, at: Int64) {
        if case .none = access, let last = changes.last, case .none = last.access { return }
        changes.append(Change(at: at, access: access))
    }

    mutating func purchased(at: Int64, isTrial: Bool, commitmentPeriod: Int?) {
        purchases.append(Purchase(at: at, isTrial: isTrial, commitmentPeriod: commitmentPeriod))
    }

    /// Access at `instant` (half-open: a change at `instant` applies).
    func access(at instant: Int64) -> Access? {
        var low = 0, high = changes.count
        while low < high {
            let middle = (low + high) / 2
            if changes[middle].at <= instant { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : changes[low - 1].access
    }
}

/// Where a subscription stands, as `data.status` and the contract's `status` say it.
enum Phase: Sendable {
    case active
    case grace
    case billingRetry
    case expired
    case revoked

    var status: SubscriptionStatus {
        switch self {
        case .active: .active
        case .grace: .billingGracePeriod
        case .billingRetry: .billingRetry
        case .expired: .expired
        case .revoked: .revoked
        }
    }

    var contractName: String {
        switch self {
        case .active: "active"
        case .grace: "grace_period"
        case .billingRetry: "billing_retry"
        case .expired: "expired"
        case .revoked: "revoked"
        }
    }
}

/// A subscription's state at the end of the simulation: its latest transaction and renewal
/// info as the simulation last sent them, and what the simulation knows beyond them.
struct FinalSubscription: Sendable {
    var customerId: String
    var transaction: TransactionPayload
    var renewalInfo: RenewalInfoPayload
    var phase: Phase
    var priceIncrease: NotificationSubtype?
}

/// One transaction's contribution to one revenue period.
struct RevenueEntry: Sendable {
    /// Identifies the transaction within its customer.
    var sale: Int
    var period: Int
    var currency: Currency
    /// Proceeds rate in percent (70 or 85).
    var rate: Int64
    var sales: Int64
    var refunds: Int64
    var transactions: Int
    var refundedTransactions: Int
}

/// Everything one customer's simulation produced.
struct CustomerOutcome: Sendable {
    var notices: [Notice]
    var history: SubscriptionHistory
    /// The purchaser's subscription, then a family member's, if any.
    var subscriptions: [FinalSubscription]
    var revenue: [RevenueEntry]
}
