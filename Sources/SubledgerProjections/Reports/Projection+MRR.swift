import SubledgerLog
import SubledgerCore

/// `report mrr --json`.
public struct MRRReport: Sendable, Equatable {
    public var at: Int64
    public var environment: String
    /// By currency; only currencies with an active subscription or trial.
    public var rows: [MRRRow]
    /// The log position the report was asked as of (`--at-position`), echoed so that a saved
    /// report says it is a view of the past; nil for the ledger as it stands.
    public var atPosition: LogPosition? = nil
}

public struct MRRRow: Sendable, Equatable {
    public var currency: String
    /// The exact monthly sum, rounded half away from zero once.
    public var mrr: Int64
    /// Twelve times the exact monthly sum (an integer: every normalisation is in twelfths).
    public var arr: Int64
    /// Entitled, purchased (not family-shared), not in a free trial.
    public var activeSubscriptions: Int
    public var activeTrials: Int
    /// Active subscriptions on a 12-month commitment billed monthly.
    public var activeCommitments: Int
    /// For those: (totalBillingPeriods − billingPeriodNumber) × price.
    public var committedRevenueRemaining: Int64

    public init(
        currency: String, mrr: Int64, arr: Int64, activeSubscriptions: Int, activeTrials: Int, activeCommitments: Int,
        committedRevenueRemaining: Int64
    ) {
        self.currency = currency
        self.mrr = mrr
        self.arr = arr
        self.activeSubscriptions = activeSubscriptions
        self.activeTrials = activeTrials
        self.activeCommitments = activeCommitments
        self.committedRevenueRemaining = committedRevenueRemaining
    }
}

extension Projection {
    /// Monthly recurring revenue at `instant`, per currency.
    ///
    /// Each active paid subscription contributes its current period's price (a grace period
    /// its last paid price) normalised to a month: P1W ×52/12, P1M ×1, P2M ×1/2, P3M ×1/3,
    /// P6M ×1/6, P1Y ×1/12, a monthly-billed commitment ×1. The period comes from the catalog,
    /// else (and for pay-up-front offers, whose price covers the offer period) from the
    /// transaction's `offerPeriod` or its `expiresDate` less where its billing began (its
    /// `purchaseDate`, or the renewal date a recovery in grace keeps: of the two, the one that
    /// spans a standard period more nearly), rounded to the nearest.
    public func mrr(at instant: Int64, scope: ReportScope) -> MRRReport {
        mrr(at: [instant], scope: scope)[0]
    }

    /// `mrr(at:scope:)` at each of `instants`, each timeline resolved once for all of them (a
    /// series at a log position).
    public func mrr(at instants: [Int64], scope: ReportScope) -> [MRRReport] {
        var rows = [[String: (twelfths: Int64, row: MRRRow)]](repeating: [:], count: instants.count)
        for (_, history) in histories(in: scope) {
            let segments = history.segments()
            for (index, instant) in instants.enumerated() {
                guard let segment = segments.first(where: { $0.contains(instant) }),
                    let share = mrrShare(of: segment, in: history, catalog: scope.catalog)
                else { continue }
                let currency = text(share.currency) ?? ""
                var entry = rows[index][currency] ?? (0, MRRRow(currency: currency))
                entry.twelfths += share.twelfths
                entry.row.activeSubscriptions += share.subscriptions
                entry.row.activeTrials += share.trials
                entry.row.activeCommitments += share.commitments
                entry.row.committedRevenueRemaining += share.committedRevenueRemaining
                rows[index][currency] = entry
            }
        }
        return zip(instants, rows).map { instant, rows in
            let sorted = rows.values.map { entry in
                var row = entry.row
                row.mrr = divideRoundingHalfAwayFromZero(entry.twelfths, 12)
                row.arr = entry.twelfths
                return row
            }.sorted { $0.currency < $1.currency }
            return MRRReport(at: instant, environment: scope.environment.rawValue, rows: sorted)
        }
    }

    /// What a subscription adds to MRR while `segment` lasts: nil when it counts for nothing
    /// (family-shared). A grace period after free trials only (the conversion's charge failed)
    /// is a trial's, as `customer` reports its period type: entitled, nothing paid yet. It was
    /// counted nowhere, though entitled.
    func mrrShare(of segment: EntitlementSegment, in history: SubscriptionHistory, catalog: ProductCatalog?) -> MRRShare? {
        guard !segment.isFamilyShared else { return nil }
        if segment.isTrial || (segment.isGrace && !segment.isPaid) {
            return MRRShare(currency: history.periods[segment.period].version.currency, trials: 1)
        }
        guard segment.isPaid, let priced = history.lastPaidPeriod(atOrBefore: segment.period) else { return nil }
        let period = history.periods[priced]
        let version = period.version
        let price = version.price == .absent ? 0 : version.price
        var share = MRRShare(currency: version.currency, twelfths: price * billingTwelfths(of: priced, in: history, catalog: catalog), subscriptions: 1)
        if version.isMonthlyCommitment {
            share.commitments = 1
            if version.commitmentTotal >= 0, version.commitmentPeriod >= 0 {
                share.committedRevenueRemaining = Int64(max(0, version.commitmentTotal - version.commitmentPeriod)) * price
            }
        }
        return share
    }

    /// Twelfths of a month that one period's price stands for.
    private func billingTwelfths(of index: Int, in history: SubscriptionHistory, catalog: ProductCatalog?) -> Int64 {
        let period = history.periods[index]
        let version = period.version
        if version.isMonthlyCommitment { return BillingPeriod.month.monthlyTwelfths }
        let payUpFront = version.offerDiscountType == Known.payUpFront
        if payUpFront, let offer = text(version.offerPeriod).flatMap(BillingPeriod.init(iso8601:)) {
            return offer.monthlyTwelfths
        }
        if !payUpFront, let productId = text(version.productId),
            let listed = catalog?.product(productId)?.period.flatMap(BillingPeriod.init(iso8601:))
        {
            return listed.monthlyTwelfths
        }
        let end = period.baseExpiresDate.present ?? version.expiresDate.present ?? version.purchaseDate
        let fromPurchase = BillingPeriod.nearest(to: end &- version.purchaseDate)
        guard let due = history.missedRenewal(before: index) else { return fromPurchase.period.monthlyTwelfths }
        // Of a renewal's and an upgrade's reading, the true one spans a whole period.
        let fromDue = BillingPeriod.nearest(to: end &- due)
        return (fromDue.misfit < fromPurchase.misfit ? fromDue : fromPurchase).period.monthlyTwelfths
    }
}

/// One subscription's part of an MRR row.
struct MRRShare {
    var currency: UInt32
    var twelfths: Int64 = 0
    var subscriptions = 0
    var trials = 0
    var commitments = 0
    var committedRevenueRemaining: Int64 = 0
}

extension MRRRow {
    /// A row of `currency` with nothing active.
    public init(currency: String) {
        self.init(
            currency: currency, mrr: 0, arr: 0, activeSubscriptions: 0, activeTrials: 0, activeCommitments: 0,
            committedRevenueRemaining: 0)
    }
}

/// `report mrr --from --to`: MRR at the end of each day or month of a range, as the
/// dashboard's chart shows it.
public struct MRRSeriesReport: Sendable, Equatable {
    public var from: UTCDay
    public var to: UTCDay
    public var by: ReportGranularity
    public var environment: String
    /// A report for each period begun by the time asked (`MRRQuery.Series.instants(now:)`).
    public var points: [MRRReport]
    public var atPosition: LogPosition? = nil

    public init(from: UTCDay, to: UTCDay, by: ReportGranularity, environment: String, points: [MRRReport], atPosition: LogPosition? = nil) {
        self.from = from
        self.to = to
        self.by = by
        self.environment = environment
        self.points = points
        self.atPosition = atPosition
    }

    /// Each point converted as `MRRReport.converted(into:rates:)` converts one: at the rate of
    /// its own month.
    public func converted(into target: String, rates: CurrencyRates) throws(QueryError) -> MRRSeriesReport {
        var converted = self
        converted.points = []
        for point in points { converted.points.append(try point.converted(into: target, rates: rates)) }
        return converted
    }
}
