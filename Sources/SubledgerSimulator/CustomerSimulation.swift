import SubledgerAppStore

/// Thrown when a customer's story reaches the end of the simulation: it stops there, with
/// everything as it was.
struct PastHorizon: Error {}

/// Simulates one customer from joining to the end of the simulation: their subscription, a
/// family member's shared copy of it, and one-time purchases.
///
/// Every decision is applied twice at once: as the notification Apple would send, and as the
/// model facts the ground truth is computed from (access changes, purchases, revenue entries,
/// the final state). The two therefore always tell the same story, and the ground truth never
/// depends on reading the notifications back.
final class CustomerSimulation {
    static let hour: Int64 = 3_600_000
    static let day = UTC.millisecondsPerDay
    static let gracePeriod = 16 * day
    static let billingRetryPeriod = 60 * day

    let context: SimulationContext
    let index: Int
    var random: Xoshiro256
    let storefront: Storefront
    let appAccountToken: String?
    let appTransactionId: String

    var notices: [Notice] = []
    var revenue: [RevenueEntry] = []
    var history = SubscriptionHistory()
    var transactionCount = 0
    var saleCount = 0

    // MARK: The subscription

    var originalTransactionId = ""
    var originalPurchaseDate: Int64 = 0
    var product = Product.basicMonthly
    /// The current transaction, exactly as last sent.
    var transaction = TransactionPayload()
    var lastRenewalInfo = RenewalInfoPayload()
    var phase = Phase.active
    /// The latest instant of this subscription's notifications; each new one is later.
    var lastInstant = Int64.min
    var lastPriceIncrease: NotificationSubtype?

    // Renewal preferences and billing state, from which each renewal info is built.
    var autoRenew = true
    var autoRenewBeforeRefund = true
    /// A downgrade waiting for the next renewal.
    var nextProduct: Product?
    /// The offer that applies at the next renewal (pay-as-you-go intro months, an offer code).
    var nextOffer: Offer?
    var introMonthsLeft = 0
    var priceIncreaseOffered = false
    var priceIncreaseStatus: PriceIncreaseStatus?
    var increasedProduct: Product?
    var expirationIntent: ExpirationIntent?
    var inBillingRetry = false
    var gracePeriodExpires: Int64?
    var winBackOffers: [String]?
    var commitmentExpires: Int64?

    /// Renewal dates are `anchor + anchorMonths` calendar months, so Jan 31 renews on Feb 28
    /// and then Mar 31, as the App Store does.
    var anchor: Int64 = 0
    var anchorMonths = 0

    // Money
    var currentSale: Sale?
    var refundedAmount: Int64 = 0
    var paidService = PaidService()

    var member: FamilyMember?

    struct Sale {
        var id: Int
        var rate: Int64
    }

    struct Offer: Equatable {
        var type: OfferType
        var identifier: String?
        var discount: OfferDiscountType
        var period: String
    }

    init(index: Int, context: SimulationContext) {
        self.index = index
        self.context = context
        var random = Xoshiro256(seed: context.seed, stream: UInt64(index) &+ 1)
        let rates = context.rates
        storefront = Storefront.allCases[random.weightedIndex([rates.usa, rates.germany, rates.japan])]
        appAccountToken = random.chance(rates.appAccountToken) ? random.uuid() : nil
        appTransactionId = String(705_000_000_000_000_000 + Int64(index) * 2)
        self.random = random
    }

    var rates: Rates { context.rates }

    /// Simulates the customer's whole story.
    func run() -> CustomerOutcome {
        let join = joinInstant()
        do throws(PastHorizon) {
            try subscribe(at: join)
            while try livePeriod() {}
        } catch {
            // The story reached the end of the simulation; the state stays as it was.
        }
        simulateOneTimePurchases(from: join)
        notices.sort { ($0.signedDate, $0.sequence) < ($1.signedDate, $1.sequence) }

        var subscriptions = [FinalSubscription(customerId: appAccountToken ?? originalTransactionId, transaction: transaction,
                                               renewalInfo: lastRenewalInfo, phase: phase, priceIncrease: lastPriceIncrease)]
        if let member {
            subscriptions.append(member.final)
        }
        return CustomerOutcome(notices: notices, history: history, subscriptions: subscriptions, revenue: revenue)
    }

    // MARK: Time

    /// Moves this subscription's clock to `instant` (or just after its previous notification),
    /// or ends the story when that is past the simulation.
    func advance(to instant: Int64) throws(PastHorizon) -> Int64 {
        let at = max(instant, lastInstant + 1)
        guard at < context.end else { throw PastHorizon() }
        lastInstant = at
        return at
    }

    /// A random instant strictly inside `(from, to)`, an hour away from both ends and never
    /// exactly midnight (so no event coincides with a report boundary); `nil` when the
    /// interval is too short.
    func instant(between from: Int64, and to: Int64) -> Int64? {
        guard to - from > 2 * Self.hour else { return nil }
        let at = from + Self.hour + Int64(random.below(UInt64(to - from - 2 * Self.hour)))
        return at % Self.day == 0 ? at + 1 : at
    }

    /// The chance of something with a monthly probability happening in `months` months.
    func chance(perMonth probability: Double, months: Int) -> Bool {
        var none = 1.0
        for _ in 0..<max(months, 1) { none *= 1 - probability }
        return random.chance(1 - none)
    }

    private func joinInstant() -> Int64 {
        let span = context.end - context.start
        let window = random.chance(rates.launchShare) ? min(span, 30 * Self.day) : span
        let at = context.start + Int64(random.below(UInt64(window)))
        return at % Self.day == 0 ? at + 1 : at
    }

    // MARK: Identifiers

    /// A new transaction identifier and web order line item identifier; numeric like Apple's
    /// and unique across customers.
    func nextIdentifiers() -> (transactionId: String, webOrderLineItemId: String) {
        transactionCount += 1
        precondition(transactionCount < 100_000, "a customer ran out of transaction identifiers; simulate fewer months")
        let serial = Int64(index) * 100_000 + Int64(transactionCount)
        return (String(200_000_000_000_000 + serial), String(100_000_000_000_000 + serial))
    }

    // MARK: Notifications

    /// Appends a notification signed at `instant` carrying `transaction` and `renewalInfo`, both
    /// re-signed at the same instant.
    func append(_ type: NotificationType, _ subtype: NotificationSubtype?, at instant: Int64,
                transaction: TransactionPayload, renewalInfo: RenewalInfoPayload?, status: SubscriptionStatus?,
                consumptionReason: ConsumptionRequestReason? = nil) {
        var data = NotificationData()
        data.appAppleId = context.appAppleId
        data.bundleId = context.bundleId
        data.bundleVersion = context.bundleVersion
        data.environment = .production
        data.status = status
        data.consumptionRequestReason = consumptionReason
        var notification = NotificationPayload()
        notification.notificationType = type
        notification.subtype = subtype
        notification.notificationUUID = random.uuid()
        notification.version = "2.0"
        notification.signedDate = instant
        notification.data = data
        var transaction = transaction
        transaction.signedDate = instant
        var renewalInfo = renewalInfo
        renewalInfo?.signedDate = instant
        notices.append(Notice(customer: index, sequence: Int32(notices.count), notification: notification,
                              transaction: transaction, renewalInfo: renewalInfo))
    }

    /// Sends a subscription notification with the current transaction and renewal info, and its
    /// copy to the family member when Apple would.
    func notify(_ type: NotificationType, _ subtype: NotificationSubtype? = nil, at instant: Int64,
                consumptionReason: ConsumptionRequestReason? = nil) {
        lastRenewalInfo = renewalInfo()
        append(type, subtype, at: instant, transaction: transaction, renewalInfo: lastRenewalInfo,
               status: phase.status, consumptionReason: consumptionReason)
        mirrorToFamily(type, subtype, at: instant)
    }

    /// The renewal info for the subscription's current state.
    func renewalInfo() -> RenewalInfoPayload {
        var info = RenewalInfoPayload()
        let renewing = nextProduct ?? product
        info.expirationIntent = expirationIntent
        info.originalTransactionId = originalTransactionId
        info.autoRenewProductId = renewing.productId
        info.productId = product.productId
        info.autoRenewStatus = autoRenew ? .on : .off
        info.isInBillingRetryPeriod = inBillingRetry
        info.priceIncreaseStatus = priceIncreaseStatus
        info.gracePeriodExpiresDate = gracePeriodExpires
        if let nextOffer {
            info.offerType = nextOffer.type
            info.offerIdentifier = nextOffer.identifier
            info.offerDiscountType = nextOffer.discount
            info.offerPeriod = nextOffer.period
        }
        info.environment = .production
        info.recentSubscriptionStartDate = paidService.runStart ?? originalPurchaseDate
        info.renewalDate = transaction.expiresDate
        info.renewalPrice = renewalPrice(of: renewing, offer: nextOffer)
        info.currency = storefront.currency.code
        info.appAccountToken = appAccountToken
        info.appTransactionId = appTransactionId
        info.eligibleWinBackOfferIds = winBackOffers
        if product.isCommitment, phase != .expired, phase != .revoked, let commitmentExpires {
            let price = storefront.price(product)
            info.renewalBillingPlanType = .monthly
            var commitment = RenewalCommitmentInfo()
            commitment.commitmentAutoRenewProductId = product.productId
            commitment.commitmentAutoRenewStatus = autoRenew ? .on : .off
            commitment.commitmentRenewalBillingPlanType = .monthly
            commitment.commitmentRenewalDate = commitmentExpires
            commitment.commitmentRenewalPrice = price * Int64(Product.commitmentPeriods)
            info.commitmentInfo = commitment
        }
        return info
    }

    func renewalPrice(of product: Product, offer: Offer?) -> Int64 {
        if offer != nil { return storefront.discountedMonth(product) }
        if priceIncreaseStatus == .customerConsentedOrWasNotified, increasedProduct == product,
           let increased = storefront.increasedPrice(product) {
            return increased
        }
        return storefront.price(product)
    }

    /// A subscription transaction of this customer.
    func makeTransaction(identifiers: (transactionId: String, webOrderLineItemId: String)? = nil,
                         product: Product, purchaseDate: Int64, expiresDate: Int64, price: Int64,
                         offer: Offer?, reason: TransactionReason, commitmentPeriod: Int? = nil) -> TransactionPayload {
        let identifiers = identifiers ?? nextIdentifiers()
        var transaction = TransactionPayload()
        transaction.transactionId = identifiers.transactionId
        transaction.originalTransactionId = originalTransactionId
        transaction.webOrderLineItemId = identifiers.webOrderLineItemId
        transaction.bundleId = context.bundleId
        transaction.productId = product.productId
        transaction.subscriptionGroupIdentifier = Product.subscriptionGroupIdentifier
        transaction.purchaseDate = purchaseDate
        transaction.originalPurchaseDate = originalPurchaseDate
        transaction.expiresDate = expiresDate
        transaction.quantity = 1
        transaction.type = .autoRenewableSubscription
        transaction.appAccountToken = appAccountToken
        transaction.inAppOwnershipType = .purchased
        if let offer {
            transaction.offerType = offer.type
            transaction.offerIdentifier = offer.identifier
            transaction.offerDiscountType = offer.discount
            transaction.offerPeriod = offer.period
        }
        transaction.environment = .production
        transaction.storefront = storefront.code
        transaction.storefrontId = storefront.storefrontId
        transaction.transactionReason = reason
        transaction.price = price
        transaction.currency = storefront.currency.code
        transaction.appTransactionId = appTransactionId
        if product == .proYearly {
            transaction.billingPlanType = .billedUpfront
        }
        if product.isCommitment, let commitmentPeriod, let commitmentExpires {
            transaction.billingPlanType = .monthly
            var commitment = TransactionCommitmentInfo()
            commitment.billingPeriodNumber = commitmentPeriod
            commitment.totalBillingPeriods = Product.commitmentPeriods
            commitment.commitmentExpiresDate = commitmentExpires
            commitment.commitmentPrice = price * Int64(Product.commitmentPeriods)
            transaction.commitmentInfo = commitment
        }
        return transaction
    }

    // MARK: Money

    /// Books a paid transaction in its purchase period.
    func sell(at instant: Int64, price: Int64, rate: Int64) -> Sale {
        let sale = Sale(id: saleCount, rate: rate)
        saleCount += 1
        revenue.append(RevenueEntry(sale: sale.id, period: context.grid.index(of: instant), currency: storefront.currency,
                                    rate: rate, sales: price, refunds: 0, transactions: 1, refundedTransactions: 0))
        return sale
    }

    /// Books a refund (or, with negative amount and count, its reversal) in its own period.
    func bookRefund(of sale: Sale, at instant: Int64, amount: Int64, count: Int) {
        revenue.append(RevenueEntry(sale: sale.id, period: context.grid.index(of: instant), currency: storefront.currency,
                                    rate: sale.rate, sales: 0, refunds: amount, transactions: 0, refundedTransactions: count))
    }

    /// Records the current transaction as a new purchase: its access, its sale and its place in
    /// the paid-service year.
    func recordPurchase(at instant: Int64) {
        let isTrial = transaction.offerDiscountType == .freeTrial
        history.purchased(at: instant, isTrial: isTrial, commitmentPeriod: transaction.commitmentInfo?.billingPeriodNumber)
        if isTrial {
            currentSale = nil
            history.set(.trial(storefront.currency), at: instant)
        } else {
            let rate = paidService.rate(forPurchaseAt: instant)
            paidService.open(from: instant, to: transaction.expiresDate ?? instant)
            currentSale = sell(at: instant, price: transaction.price ?? 0, rate: rate)
            history.set(.paid(Billing(of: transaction, currency: storefront.currency)), at: instant)
        }
    }
}

/// The paid-service clock behind the proceeds rate: 85% for a transaction bought after a year
/// (365 days) of paid service in the subscription group, else 70%. Each paid transaction counts
/// from its purchase to its original expiry (renewal extensions excluded) or to an earlier
/// upgrade or refund; the billing grace days before a recovery in grace count (Apple: no
/// interruption to the days of paid service); free trials and billing retry days don't; a gap
/// of more than 60 days between one paid period's end and the next purchase restarts the count.
struct PaidService {
    static let year = 365 * UTC.millisecondsPerDay
    static let lapse = 60 * UTC.millisecondsPerDay

    private var accumulated: Int64 = 0
    private var lastEnd: Int64?
    private var current: (start: Int64, end: Int64, plannedEnd: Int64)?
    /// Start of the current run of paid service, for `recentSubscriptionStartDate`.
    private(set) var runStart: Int64?

    /// Closes the previous paid period and returns the rate in percent for a purchase at `instant`.
    mutating func rate(forPurchaseAt instant: Int64) -> Int64 {
        if let current {
            accumulated += max(0, current.end - current.start)
            lastEnd = current.end
            self.current = nil
        }
        if let lastEnd, instant - lastEnd > Self.lapse {
            accumulated = 0
            runStart = nil
        }
        if runStart == nil { runStart = instant }
        return accumulated >= Self.year ? 85 : 70
    }

    mutating func open(from start: Int64, to end: Int64) {
        current = (start, end, end)
    }

    /// The current paid period ends early (upgrade, refund).
    mutating func cut(at instant: Int64) {
        if let period = current, instant < period.end { current?.end = instant }
    }

    /// The subscription recovered at `recovery` in the billing grace period after `expiry`.
    mutating func recoveredInGrace(from expiry: Int64, at recovery: Int64) {
        accumulated += max(0, recovery - expiry)
    }

    /// A reversed refund gives the period back.
    mutating func restore() {
        if let period = current { current?.end = period.plannedEnd }
    }
}
