import SubledgerLog
/// `report churn --json`.
public struct ChurnReport: Sendable, Equatable {
    public var from: UTCDay
    public var to: UTCDay
    public var by: ReportGranularity
    public var environment: String
    /// By period; only periods with some activity.
    public var rows: [ChurnRow]
    /// The log position the report was asked as of (`--at-position`), echoed so that a saved
    /// report says it is a view of the past; nil for the ledger as it stands.
    public var atPosition: LogPosition? = nil
}

public struct ChurnRow: Sendable, Equatable {
    public var period: String
    /// Entitled and paid (not in a free trial) at the period's start.
    public var activeAtStart: Int
    /// Subscriptions whose first paid period started in the period.
    public var newPaid: Int
    /// Paid subscriptions whose entitlement ended in the period and that are not entitled at
    /// its end.
    public var churned: Int
    /// churned / activeAtStart; nil when activeAtStart is 0.
    public var churnRate: Double?
    public var byReason: ChurnReasons
    /// Subscriptions that had churned before the period and are paid again in it.
    public var reactivated: Int
    public var trialsStarted: Int
    /// Of the trials started in the period, those whose next transaction is paid.
    public var trialsConverted: Int
    /// trialsConverted / trialsStarted; nil when no trial started.
    public var trialConversionRate: Double?
    public var commitmentsStarted: Int
    /// Commitments whose last billing period was paid in the period.
    public var commitmentsCompleted: Int
    /// Commitments whose entitlement ended in the period before their last billing period.
    public var commitmentsDefaulted: Int
}

/// Churned subscriptions by why they ended; encoded with the contract's snake-case keys.
public struct ChurnReasons: Sendable, Equatable, Encodable {
    private enum CodingKeys: String, CodingKey {
        case voluntary
        case billingError = "billing_error"
        case priceIncrease = "price_increase"
        case productNotForSale = "product_not_for_sale"
        case refund, other
    }

    public var voluntary = 0
    public var billingError = 0
    public var priceIncrease = 0
    public var productNotForSale = 0
    public var refund = 0
    public var other = 0

    public init() {}

    mutating func count(_ reason: ExpirationReason) {
        switch reason {
        case .voluntary: voluntary += 1
        case .billingError: billingError += 1
        case .priceIncrease: priceIncrease += 1
        case .productNotForSale: productNotForSale += 1
        case .other: other += 1
        }
    }
}

extension Projection {
    /// Churn, reactivations, trials and commitments per period over `from`...`to` (whole UTC
    /// days, inclusive; the first and last periods are cut at those days). Family-shared
    /// subscriptions are never counted.
    ///
    /// A subscription churns in a period when a paid stretch of entitlement (a paid period, or
    /// a grace period after one) ends in it — at its expiry, grace end or revocation, with no
    /// entitlement right after — and it is not entitled at the period's end. The reason is the
    /// refund when a refund ended it, else the expiration reason of that lapse.
    public func churn(from: UTCDay, to: UTCDay, by granularity: ReportGranularity = .month, scope: ReportScope) -> ChurnReport {
        let periods = granularity.periods(from: from, to: to)
        var rows = periods.map { ChurnRow(period: $0.label) }
        for (_, history) in histories(in: scope) {
            let timeline = EntitlementTimeline(history.segments())
            guard !timeline.segments.isEmpty else { continue }
            for (index, period) in periods.enumerated() {
                rows[index].count(history, timeline, from: period.start, to: period.end)
            }
        }
        return ChurnReport(
            from: from, to: to, by: granularity, environment: scope.environment.rawValue, rows: rows.filter(\.hasActivity).map { $0.withRates() })
    }

}

extension ReportGranularity {
    /// The report's periods, cut to `from`...`to`.
    func periods(from: UTCDay, to: UTCDay) -> [(label: String, start: Int64, end: Int64)] {
        let start = from.start
        let end = UTCDay(number: to.number + 1).start
        guard start < end else { return [] }
        var periods: [(String, Int64, Int64)] = []
        var bucket = self.bucket(containing: start)
        while self.start(ofBucket: bucket) < end {
            let bucketStart = max(start, self.start(ofBucket: bucket))
            let bucketEnd = min(end, self.start(ofBucket: bucket + 1))
            periods.append((label(ofBucket: bucket), bucketStart, bucketEnd))
            bucket += 1
        }
        return periods
    }
}

/// A subscription's entitlement segments (family-shared ones removed), with the questions the
/// churn and cohort reports ask.
struct EntitlementTimeline {
    let segments: [EntitlementSegment]

    init(_ segments: [EntitlementSegment]) {
        self.segments = segments.filter { !$0.isFamilyShared }
    }

    func entitled(at instant: Int64) -> Bool {
        segments.contains { $0.contains(instant) }
    }

    func paidEntitled(at instant: Int64) -> Bool {
        segments.contains { $0.isPaid && $0.contains(instant) }
    }

    /// The last paid stretch ending in `(from, to]` with no entitlement right after: a lapse.
    /// Found without listing the others: a rebuild asks for every period a subscription touches.
    func lastPaidLapse(endingAfter from: Int64, notAfter to: Int64) -> EntitlementSegment? {
        segments.last { isPaidLapse($0, endingAfter: from, notAfter: to) }
    }

    func hasPaidLapse(endingAfter from: Int64, notAfter to: Int64) -> Bool {
        segments.contains { isPaidLapse($0, endingAfter: from, notAfter: to) }
    }

    private func isPaidLapse(_ segment: EntitlementSegment, endingAfter from: Int64, notAfter to: Int64) -> Bool {
        segment.end > from && segment.end <= to && isPaidLapse(segment)
    }

    /// A paid stretch that ends with no entitlement right after.
    func isPaidLapse(_ segment: EntitlementSegment) -> Bool {
        segment.isPaid && segment.end != .max && !entitled(at: segment.end)
    }

    /// The start of the first paid period (not a grace period).
    var firstPaidStart: Int64? {
        segments.first { $0.isPaid && !$0.isGrace }?.start
    }
}

extension ChurnRow {
    init(period: String) {
        self.init(
            period: period, activeAtStart: 0, newPaid: 0, churned: 0, churnRate: nil, byReason: ChurnReasons(),
            reactivated: 0, trialsStarted: 0, trialsConverted: 0, trialConversionRate: nil, commitmentsStarted: 0,
            commitmentsCompleted: 0, commitmentsDefaulted: 0)
    }

    var hasActivity: Bool {
        activeAtStart + newPaid + churned + reactivated + trialsStarted + commitmentsStarted + commitmentsCompleted
            + commitmentsDefaulted > 0
    }

    /// The row with its rates computed from its counts.
    func withRates() -> ChurnRow {
        var row = self
        row.churnRate = activeAtStart == 0 ? nil : Double(churned) / Double(activeAtStart)
        row.trialConversionRate = trialsStarted == 0 ? nil : Double(trialsConverted) / Double(trialsStarted)
        return row
    }

    /// Counts `lapse` as the subscription's churn in the period.
    mutating func countChurn(of lapse: EntitlementSegment, in history: SubscriptionHistory) {
        churned += 1
        if case .revocation(familyRevoke: false) = lapse.ending {
            byReason.refund += 1
        } else {
            byReason.count(history.expirationReason(after: lapse.period))
        }
        let version = history.periods[lapse.period].version
        if version.isMonthlyCommitment, version.commitmentTotal > 0, version.commitmentPeriod < version.commitmentTotal {
            commitmentsDefaulted += 1
        }
    }

    /// Adds one subscription's contribution to the period `[start, end)`.
    mutating func count(_ history: SubscriptionHistory, _ timeline: EntitlementTimeline, from start: Int64, to end: Int64) {
        let paidAtStart = timeline.paidEntitled(at: start)
        if paidAtStart { activeAtStart += 1 }
        let firstPaid = timeline.firstPaidStart
        if let firstPaid, firstPaid >= start, firstPaid < end { newPaid += 1 }

        if let lapse = timeline.lastPaidLapse(endingAfter: start, notAfter: end), !timeline.entitled(at: end) {
            countChurn(of: lapse, in: history)
        }

        // Paid across the start is no comeback; paid on one side only is: a comeback at the
        // period's first millisecond is paid at its start, and a lapse at that millisecond was
        // churn in the period before.
        if !(paidAtStart && timeline.paidEntitled(at: start - 1)), let firstPaid, firstPaid < start,
            timeline.hasPaidLapse(endingAfter: .min, notAfter: start),
            timeline.segments.contains(where: { $0.isPaid && $0.start >= start && $0.start < end })
        {
            reactivated += 1
        }

        for index in history.periods.indices {
            let version = history.periods[index].version
            guard !version.isFamilyShared, version.purchaseDate >= start, version.purchaseDate < end else { continue }
            if version.isTrial {
                trialsStarted += 1
                if index + 1 < history.periods.count, !history.periods[index + 1].version.isTrial { trialsConverted += 1 }
            }
            if version.isMonthlyCommitment {
                if version.commitmentPeriod == 1 { commitmentsStarted += 1 }
                if version.commitmentTotal > 0, version.commitmentPeriod == version.commitmentTotal { commitmentsCompleted += 1 }
            }
        }
    }
}
