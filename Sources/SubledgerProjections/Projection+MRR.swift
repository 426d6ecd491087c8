/// `report mrr --json`.
public struct MRRReport: Sendable, Equatable {
    public var at: Int64
    public var environment: String
    /// By currency; only currencies with an active subscription or trial.
    public var rows: [MRRRow]
}

public struct MRRRow: Sendable, Equatable, Encodable {
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
    /// transaction's `offerPeriod` or its `expiresDate − purchaseDate`, rounded to the nearest.
    public func mrr(at instant: Int64, scope: ReportScope) -> MRRReport {
        var rows: [String: (twelfths: Int64, row: MRRRow)] = [:]
        for (_, history) in histories(in: scope) {
            let segments = history.segments()
            guard let segment = segments.first(where: { $0.contains(instant) }), !segment.isFamilyShared else { continue }
            if segment.isTrial {
                let currency = text(history.periods[segment.period].version.currency) ?? ""
                rows[currency, default: (0, MRRRow(currency: currency))].row.activeTrials += 1
                continue
            }
            guard segment.isPaid, let priced = history.lastPaidPeriod(atOrBefore: segment.period) else { continue }
            let period = history.periods[priced]
            let version = period.version
            let currency = text(version.currency) ?? ""
            let price = version.price == .absent ? 0 : version.price
            var entry = rows[currency] ?? (0, MRRRow(currency: currency))
            entry.twelfths += price * billingTwelfths(period, catalog: scope.catalog)
            entry.row.activeSubscriptions += 1
            if version.isMonthlyCommitment {
                entry.row.activeCommitments += 1
                if version.commitmentTotal >= 0, version.commitmentPeriod >= 0 {
                    entry.row.committedRevenueRemaining += Int64(max(0, version.commitmentTotal - version.commitmentPeriod)) * price
                }
            }
            rows[currency] = entry
        }
        let sorted = rows.values.map { entry in
            var row = entry.row
            row.mrr = divideRoundingHalfAwayFromZero(entry.twelfths, 12)
            row.arr = entry.twelfths
            return row
        }.sorted { $0.currency < $1.currency }
        return MRRReport(at: instant, environment: scope.environment.rawValue, rows: sorted)
    }

    /// Twelfths of a month that one period's price stands for.
    private func billingTwelfths(_ period: ResolvedTransaction, catalog: ProductCatalog?) -> Int64 {
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
        return BillingPeriod(nearestTo: end &- version.purchaseDate).monthlyTwelfths
    }
}

extension MRRRow {
    init(currency: String) {
        self.init(
            currency: currency, mrr: 0, arr: 0, activeSubscriptions: 0, activeTrials: 0, activeCommitments: 0,
            committedRevenueRemaining: 0)
    }
}
