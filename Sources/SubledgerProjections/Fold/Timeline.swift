/// Everything the ledger knows about one subscription (or one one-time purchase), keyed by
/// environment and `originalTransactionId`: the distinct versions of its transactions, its
/// distinct renewal-info snapshots, and one fact per event that touched it.
///
/// Nothing here is resolved: a timeline is a compact record of what was said and when it was
/// signed. Questions ("what was the state at T?", "what was known at position P?") are
/// answered by `SubscriptionHistory`, which filters the facts and orders them by signed time.
/// Arrival order never matters: facts are kept sorted by (effective time, position), and every
/// decision is made on signed times.
struct Timeline: Sendable {
    let key: TimelineKey
    /// Distinct transaction contents, in the order first seen. Facts refer to them by index.
    var transactions: [TransactionVersion] = []
    /// Distinct renewal-info contents, in the order first seen. Facts refer to them by index.
    var renewals: [RenewalSnapshot] = []
    /// One entry per folded event, sorted by (time, position).
    var facts: [Fact] = []
    /// The customer id token: the `appAccountToken` of the earliest-purchased transaction that
    /// carries one, and that transaction's purchase date.
    var customerToken: CustomerToken?
    var customerTokenPurchaseDate: Int64 = .max

    init(key: TimelineKey) {
        self.key = key
    }
}

/// A timeline's identity: the environment (interned name, 0 when absent) and the
/// `originalTransactionId`.
struct TimelineKey: Hashable, Sendable {
    let environment: UInt32
    let originalTransactionId: Identifier
}

/// A transaction id in the environment it belongs to.
struct TransactionKey: Hashable, Sendable {
    let environment: UInt32
    let transactionId: Identifier
}

/// An Apple identifier: a canonical decimal below 2^63 as its number, anything else as an
/// interned string id with the top bit set.
struct Identifier: Hashable, Sendable {
    let raw: UInt64

    static let textFlag: UInt64 = 1 << 63
    static let absent = Identifier(raw: .max)

    init(raw: UInt64) {
        self.raw = raw
    }

    init(number: UInt64) {
        raw = number
    }

    init(text id: UInt32) {
        raw = Self.textFlag | UInt64(id)
    }

    var isAbsent: Bool { raw == .max }
    var number: UInt64? { raw & Self.textFlag == 0 ? raw : nil }
    var textID: UInt32? { raw & Self.textFlag != 0 && !isAbsent ? UInt32(truncatingIfNeeded: raw) : nil }
}

/// A lowercased `appAccountToken`: a UUID as its 128 bits, anything else as an interned string.
///
/// The bits are kept as two words: a `UInt128` field would align the token, and every timeline
/// and transaction version holding one, to 16 bytes (a transaction version took 160 bytes
/// rather than 144, a timeline 96 rather than 72: 220 MB of a 10 M-event rebuild).
struct CustomerToken: Hashable, Sendable {
    enum Kind: UInt8, Sendable {
        case uuid = 1
        case text = 2
    }

    let kind: Kind
    private let low: UInt64
    private let high: UInt64

    init(kind: Kind, bits: UInt128) {
        self.kind = kind
        low = bits.low
        high = bits.high
    }

    /// The UUID's bits, or the interned id of the lowercased text.
    var bits: UInt128 { UInt128(high: high, low: low) }
}

/// A notification's `notificationUUID`: as 128 bits, or (not a UUID) the interned text.
struct NotificationKey: Hashable, Sendable {
    let isText: Bool
    let bits: UInt128
}

/// One distinct content of a transaction, reduced to what projections use. Absent dates and
/// amounts are `.absent` (`Int64.min`), absent strings 0, absent small numbers -1.
///
/// 128 bytes: a rebuild holds every version at once (about 8 M at 10 M events), and each byte
/// of them is memory the kernel must clear on first touch. So Apple's small numbers (an offer
/// type of 1–4; a commitment's billing period and count of periods, 12 at most) take a byte
/// each, clamped; a revocation percentage (in thousandths, at most 100,000) four; and the
/// customer token's kind shares a byte of flags with `isUpgraded`.
struct TransactionVersion: Hashable, Sendable {
    var transactionId = Identifier.absent
    var productId: UInt32 = 0
    var subscriptionGroup: UInt32 = 0
    var type: UInt32 = 0
    var currency: UInt32 = 0
    var storefront: UInt32 = 0
    var offerDiscountType: UInt32 = 0
    var offerPeriod: UInt32 = 0
    var ownership: UInt32 = 0
    var revocationType: UInt32 = 0
    var billingPlanType: UInt32 = 0
    private var storedRevocationPercentage = Int32.min
    private var storedOfferType: Int8 = -1
    private var storedCommitmentPeriod: Int8 = -1
    private var storedCommitmentTotal: Int8 = -1
    /// The token's kind in the low two bits (0 when absent), `isUpgraded` in the third.
    private var flags: UInt8 = 0
    var purchaseDate = Int64.absent
    var originalPurchaseDate = Int64.absent
    var expiresDate = Int64.absent
    var price = Int64.absent
    var revocationDate = Int64.absent
    var commitmentExpiresDate = Int64.absent
    var commitmentPrice = Int64.absent
    private var tokenLow: UInt64 = 0
    private var tokenHigh: UInt64 = 0

    var offerType: Int32 {
        get { Int32(storedOfferType) }
        set { storedOfferType = Int8(clamping: newValue) }
    }

    var commitmentPeriod: Int32 {
        get { Int32(storedCommitmentPeriod) }
        set { storedCommitmentPeriod = Int8(clamping: newValue) }
    }

    var commitmentTotal: Int32 {
        get { Int32(storedCommitmentTotal) }
        set { storedCommitmentTotal = Int8(clamping: newValue) }
    }

    var revocationPercentage: Int64 {
        get { storedRevocationPercentage == .min ? .absent : Int64(storedRevocationPercentage) }
        set { storedRevocationPercentage = newValue == .absent ? .min : Int32(clamping: max(newValue, Int64(Int32.min) + 1)) }
    }

    var isUpgraded: Bool {
        get { flags & Self.upgradedFlag != 0 }
        set { flags = newValue ? flags | Self.upgradedFlag : flags & ~Self.upgradedFlag }
    }

    var token: CustomerToken? {
        get {
            CustomerToken.Kind(rawValue: flags & Self.tokenKindMask).map {
                CustomerToken(kind: $0, bits: UInt128(high: tokenHigh, low: tokenLow))
            }
        }
        set {
            flags = flags & ~Self.tokenKindMask | (newValue?.kind.rawValue ?? 0)
            let bits = newValue?.bits ?? 0
            tokenLow = bits.low
            tokenHigh = bits.high
        }
    }

    private static let tokenKindMask: UInt8 = 0b11
    private static let upgradedFlag: UInt8 = 0b100
}

/// One distinct content of a renewal info, reduced to what projections use.
struct RenewalSnapshot: Hashable, Sendable {
    var signedDate = Int64.absent
    var gracePeriodExpiresDate = Int64.absent
    var autoRenewProductId: UInt32 = 0
    /// -1 absent, else Apple's value (0 off, 1 on).
    var autoRenewStatus: Int8 = -1
    /// -1 absent, else Apple's `expirationIntent`.
    var expirationIntent: Int8 = -1
    /// -1 absent, 0 false, 1 true.
    var billingRetry: Int8 = -1
    /// -1 absent, else Apple's `priceIncreaseStatus`.
    var priceIncreaseStatus: Int8 = -1
}

/// One folded event, as far as a timeline is concerned. Facts are ordered by (`time`, `tie`,
/// `position`): by what was signed, then by what it says, and only then by arrival.
struct Fact: Sendable, Equatable {
    /// The event's `effectiveAt`: the signed instant that orders it.
    var time: Int64
    /// The log position of the event record.
    var position: UInt64
    /// When the ledger recorded the event (arrival; never used to decide state).
    var recordedAt: Int64
    /// The carried transaction's `signedDate` (else `time`): orders versions of a transaction.
    var transactionSignedAt: Int64
    /// Index into `Timeline.transactions`, or -1.
    var transaction: Int32
    /// Index into `Timeline.renewals`, or -1.
    var renewal: Int32
    /// `EventType.code`.
    var type: UInt16
    /// Orders facts signed in the same millisecond by their content (`EventView.tieBreak`),
    /// where their log positions would order them by arrival. Two bytes the layout had free.
    var tie: UInt16
    /// The interned raw subtype, or 0.
    var subtype: UInt32

    /// Whether this fact comes before `other` in a timeline.
    func ordersBefore(_ other: Fact) -> Bool {
        (time, tie, position) < (other.time, other.tie, other.position)
    }
}

extension Int64 {
    /// Marks an absent date or amount in the compact model.
    static let absent = Int64.min

    /// nil when `.absent`.
    var present: Int64? { self == .absent ? nil : self }
}

/// Apple values the projections test for, interned first so that their ids are constants.
enum Known {
    static let values = [
        "Production", "Sandbox", "Xcode", "LocalTesting",
        "FREE_TRIAL", "PAY_UP_FRONT", "REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE",
        "FAMILY_SHARED", "MONTHLY", "Auto-Renewable Subscription", "Non-Consumable",
        "PENDING", "ACCEPTED", "VOLUNTARY", "BILLING_RETRY", "PRICE_INCREASE", "PRODUCT_NOT_FOR_SALE",
    ]

    static let production: UInt32 = 1
    static let freeTrial: UInt32 = 5
    static let payUpFront: UInt32 = 6
    static let refundProrated: UInt32 = 8
    static let familyRevoke: UInt32 = 9
    static let familyShared: UInt32 = 10
    static let monthly: UInt32 = 11
    static let autoRenewable: UInt32 = 12
    static let nonConsumable: UInt32 = 13
    static let pending: UInt32 = 14
    static let accepted: UInt32 = 15
    static let voluntary: UInt32 = 16
    static let billingRetry: UInt32 = 17
    static let priceIncrease: UInt32 = 18
    static let productNotForSale: UInt32 = 19

    /// A string table holding exactly the known values, at the ids above.
    static func stringTable() -> StringTable {
        var table = StringTable()
        for value in values { _ = table.intern(value) }
        return table
    }
}
