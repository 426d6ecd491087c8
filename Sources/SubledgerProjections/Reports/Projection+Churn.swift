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
    /// The last day counted when `to` is today or later (yesterday, as the report is asked by a
    /// clock): a saved report says how far it got, as the same question asked later counts more.
    public var countedThrough: UTCDay? = nil
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
public struct ChurnReasons: Sendable, Equatable {
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
///
/// The segments are in time order and do not overlap, as `SubscriptionHistory.segments()` makes
/// them (each lies within its transaction's purchase and the next one's), so their starts and
/// their ends ascend and each question is a binary search. A rebuild asks them for every day
/// and month a subscription touches: scanning every segment instead, one renewed 10,000 times
/// took 0.8 s of fold per notification.
struct EntitlementTimeline {
    let segments: [EntitlementSegment]
    /// The start of the first paid period (not a grace period).
    let firstPaidStart: Int64?
    /// Where the first paid lapse ends (`isPaidLapse`); nil when none does.
    private let firstLapseEnd: Int64?

    init(_ segments: [EntitlementSegment]) {
        let kept = segments.filter { !$0.isFamilyShared }
        self.segments = kept
        firstPaidStart = kept.first { $0.isPaid && !$0.isGrace }?.start
        // Not entitled at its end: the next segment does not start there (none other can hold it).
        let lapse = kept.indices.first { index in
            kept[index].isPaid && kept[index].end != .max && !(index + 1 < kept.count && kept[index + 1].start == kept[index].end)
        }
        firstLapseEnd = lapse.map { kept[$0].end }
    }

    /// The first segment starting at or after `instant` (`segments.count` when none does).
    func firstIndex(startingAtOrAfter instant: Int64) -> Int {
        segments.partitionPoint { $0.start >= instant }
    }

    /// The segment holding `instant`: the last one starting at or before it, if it has not ended.
    private func segment(holding instant: Int64) -> EntitlementSegment? {
        let next = instant == .max ? segments.count : firstIndex(startingAtOrAfter: instant + 1)
        return next > 0 && instant < segments[next - 1].end ? segments[next - 1] : nil
    }

    func entitled(at instant: Int64) -> Bool {
        segment(holding: instant) != nil
    }

    func paidEntitled(at instant: Int64) -> Bool {
        segment(holding: instant)?.isPaid == true
    }

    /// The last paid stretch ending in `(from, to]` with no entitlement right after: a lapse.
    func lastPaidLapse(endingAfter from: Int64, notAfter to: Int64) -> EntitlementSegment? {
        // Ends ascend: those in (from, to] lie just before the first ending after `to`.
        let after = segments.partitionPoint { $0.end > to }
        return segments[..<after].reversed().prefix { $0.end > from }.first { isPaidLapse($0) }
    }

    /// Whether a paid lapse ends at or before `instant`.
    func hasPaidLapse(notAfter instant: Int64) -> Bool {
        firstLapseEnd.map { $0 <= instant } ?? false
    }

    /// A paid stretch that ends with no entitlement right after.
    func isPaidLapse(_ segment: EntitlementSegment) -> Bool {
        segment.isPaid && segment.end != .max && !entitled(at: segment.end)
    }

    /// Whether a paid segment starts in `[start, end)`.
    func paidStart(from start: Int64, before end: Int64) -> Bool {
        segments[firstIndex(startingAtOrAfter: start)...].prefix { $0.start < end }.contains { $0.isPaid }
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
            timeline.hasPaidLapse(notAfter: start), timeline.paidStart(from: start, before: end)
        {
            reactivated += 1
        }

        // In purchase order: those of the period follow the first purchased at or after its start.
        let first = history.periods.partitionPoint { $0.version.purchaseDate >= start }
        for index in history.periods[first...].indices {
            let version = history.periods[index].version
            guard version.purchaseDate < end else { break }
            guard !version.isFamilyShared else { continue }
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
