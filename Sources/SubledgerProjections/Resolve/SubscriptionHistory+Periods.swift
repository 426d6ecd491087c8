import SubledgerEvents

/// Apple retries billing for up to 60 days; past that, with no EXPIRED notification, the
/// subscription is treated as expired (billing error).
let billingRetryLimit: Int64 = 60 * UTCCalendar.millisecondsPerDay

/// A stretch of entitlement: half-open `[start, end)`.
struct EntitlementSegment {
    let start: Int64
    let end: Int64
    /// Index into `SubscriptionHistory.periods` of the transaction it belongs to.
    let period: Int
    /// A billing grace period after the transaction's expiry.
    let isGrace: Bool
    /// Paid: not a free trial; a grace period is paid when a paid period came before it.
    let isPaid: Bool
    let isTrial: Bool
    let isFamilyShared: Bool
    /// How the segment ends.
    let ending: Ending

    enum Ending {
        case expiry
        /// The next transaction (a renewal, an upgrade) started.
        case nextPeriod
        case revocation(familyRevoke: Bool)
    }

    func contains(_ instant: Int64) -> Bool { start <= instant && instant < end }
}

/// The status of a subscription at an instant, with what goes with it.
enum PeriodStatus {
    case active
    case gracePeriod(endsAt: Int64)
    case billingRetry
    case expired(ExpirationReason)
    case revoked(Revocation, at: Int64)
}

extension SubscriptionHistory {
    /// The transaction current at `instant`: the last one purchased at or before it. A later
    /// purchase ends the one before (an upgrade at the new purchase date, a renewal).
    func currentPeriod(at instant: Int64) -> Int? {
        let after = periods.partitionPoint { $0.version.purchaseDate > instant }
        return after == 0 ? nil : after - 1
    }

    /// When the next transaction starts, or `.max`.
    func nextStart(after period: Int) -> Int64 {
        period + 1 < periods.count ? periods[period + 1].version.purchaseDate : .max
    }

    /// The end of the billing grace period that follows `period`'s expiry: the latest
    /// `gracePeriodExpiresDate` past the expiry among the snapshots signed while `period` was
    /// the current transaction (and, with `notAfter`, signed by then).
    func graceEnd(after period: Int, notAfter: Int64 = .max) -> Int64? {
        let version = periods[period].version
        guard version.expiresDate != .absent else { return nil }
        var end: Int64?
        for snapshot in renewals(signedIn: version.purchaseDate..<nextStart(after: period)) where snapshot.signedDate <= notAfter {
            if snapshot.gracePeriodExpiresDate != .absent, snapshot.gracePeriodExpiresDate > version.expiresDate {
                end = max(end ?? .min, snapshot.gracePeriodExpiresDate)
            }
        }
        return end
    }

    /// The renewal infos signed in `range`. `renewals` is in signing order, so a subscription's
    /// every period asking for its own (the rollups, `segments()`) reads each once: scanning all,
    /// one renewed 10,000 times took a tenth of a second per notification.
    func renewals(signedIn range: Range<Int64>) -> ArraySlice<RenewalSnapshot> {
        renewals[firstRenewal(signedAtOrAfter: range.lowerBound)..<firstRenewal(signedAtOrAfter: range.upperBound)]
    }

    private func firstRenewal(signedAtOrAfter instant: Int64) -> Int {
        renewals.partitionPoint { $0.signedDate >= instant }
    }

    /// Where `period`'s billing may have begun besides its purchase: when it was bought in the
    /// billing grace period after the transaction before it, that transaction's expiry. A
    /// renewal recovered in grace keeps the renewal date (Apple), so it runs from the recovery to
    /// the old expiry plus a period, and measured from its purchase a monthly one recovered late
    /// in grace reads as weekly; an upgrade bought in grace starts a period at its purchase.
    func missedRenewal(before period: Int) -> Int64? {
        guard period > 0 else { return nil }
        let purchase = periods[period].version.purchaseDate
        let due = periods[period - 1].version.expiresDate
        // Most renewals are bought before the expiry: the renewals' scan is for the rest.
        guard due != .absent, due < purchase, let grace = graceEnd(after: period - 1), purchase <= grace else { return nil }
        return due
    }

    /// The status at `instant` from the facts visible; nil before the first purchase.
    func status(at instant: Int64) -> (period: Int, status: PeriodStatus)? {
        guard let period = currentPeriod(at: instant) else { return nil }
        let version = periods[period].version
        if version.revocationDate != .absent, version.revocationDate <= instant {
            let revocation: Revocation = version.isFamilyRevoke ? .familyRevoke : .refund
            return (period, .revoked(revocation, at: version.revocationDate))
        }
        let expires = version.expiresDate == .absent ? Int64.max : version.expiresDate
        if instant < expires { return (period, .active) }
        let grace = graceEnd(after: period, notAfter: instant)
        if let grace, instant < grace { return (period, .gracePeriod(endsAt: grace)) }
        let lapse = max(expires, grace ?? expires)
        let retryEnds = lapse > Int64.max - billingRetryLimit ? Int64.max : lapse + billingRetryLimit
        if isInBillingRetry(after: period, at: instant), instant < retryEnds {
            return (period, .billingRetry)
        }
        return (period, .expired(expirationReason(after: period, notAfter: instant)))
    }

    /// Whether the latest snapshot signed since `period` began that says anything about billing
    /// retry says it is in progress, with no EXPIRED notification since the expiry.
    private func isInBillingRetry(after period: Int, at instant: Int64) -> Bool {
        let version = periods[period].version
        let expiredSinceExpiry = notes.contains {
            $0.type == .expired && $0.time >= version.expiresDate && $0.time <= instant
        }
        if expiredSinceExpiry { return false }
        let latest = renewals.last {
            $0.signedDate >= version.purchaseDate && $0.signedDate <= instant && $0.billingRetry >= 0
        }
        return latest?.billingRetry == 1
    }

    /// Why the subscription lapsed after `period`, from what was signed between its purchase
    /// and the next purchase (and `notAfter`): the latest renewal info's `expirationIntent`;
    /// else the subtype of an EXPIRED notification; else billing error if billing retry or grace
    /// was signalled; else voluntary if auto-renew was off; else other.
    func expirationReason(after period: Int, notAfter: Int64 = .max) -> ExpirationReason {
        let version = periods[period].version
        let until = min(notAfter, nextStart(after: period) == .max ? .max : nextStart(after: period) - 1)
        let window = { (time: Int64) in time >= version.purchaseDate && time <= until }
        let beyond = until == .max ? renewals.count : firstRenewal(signedAtOrAfter: until + 1)
        let signed = renewals[min(firstRenewal(signedAtOrAfter: version.purchaseDate), beyond)..<beyond]
        if let latest = signed.last, latest.expirationIntent >= 0 {
            return ExpirationReason(expirationIntent: Int(latest.expirationIntent))
        }
        if let note = notes.last(where: { $0.type == .expired && window($0.time) }) {
            return ExpirationReason(expiredSubtype: note.subtype)
        }
        let billingTrouble = signed.contains {
            $0.billingRetry == 1 || ($0.gracePeriodExpiresDate != .absent && $0.gracePeriodExpiresDate > version.expiresDate)
        }
        if billingTrouble { return .billingError }
        if renewals[..<beyond].last(where: { $0.autoRenewStatus >= 0 })?.autoRenewStatus == 0 {
            return .voluntary
        }
        return .other
    }

    /// The latest PRICE_INCREASE notification's subtype (or, without one, the status its
    /// renewal info carried).
    var priceIncrease: PriceIncrease? {
        for note in notes.reversed() where note.type == .priceIncrease {
            if note.subtype == Known.pending { return .pending }
            if note.subtype == Known.accepted { return .accepted }
            switch note.renewal?.priceIncreaseStatus {
            case 0: return .pending
            case 1: return .accepted
            default: continue
            }
        }
        return nil
    }

    /// Every stretch of entitlement, in time order and never overlapping.
    func segments() -> [EntitlementSegment] {
        var segments: [EntitlementSegment] = []
        segments.reserveCapacity(periods.count + 1)
        var paidBefore = false
        for (index, period) in periods.enumerated() {
            let version = period.version
            let start = version.purchaseDate
            let next = nextStart(after: index)
            let expires = version.expiresDate == .absent ? Int64.max : version.expiresDate
            let revocation = version.revocationDate == .absent ? Int64.max : version.revocationDate
            let end = min(expires, next, revocation)
            let familyRevoke = version.isFamilyRevoke
            let isPaid = !version.isTrial
            paidBefore = paidBefore || isPaid
            if end > start {
                let ending: EntitlementSegment.Ending =
                    end == revocation ? .revocation(familyRevoke: familyRevoke) : end == next && next < expires ? .nextPeriod : .expiry
                segments.append(EntitlementSegment(
                    start: start, end: end, period: index, isGrace: false, isPaid: isPaid, isTrial: version.isTrial,
                    isFamilyShared: version.isFamilyShared, ending: ending))
            }
            if expires < next, expires < revocation, expires >= start, let grace = graceEnd(after: index) {
                let graceEnd = min(grace, next, revocation)
                guard graceEnd > expires else { continue }
                let ending: EntitlementSegment.Ending =
                    graceEnd == revocation ? .revocation(familyRevoke: familyRevoke) : graceEnd == next ? .nextPeriod : .expiry
                segments.append(EntitlementSegment(
                    start: expires, end: graceEnd, period: index, isGrace: true, isPaid: paidBefore, isTrial: false,
                    isFamilyShared: version.isFamilyShared, ending: ending))
            }
        }
        return segments
    }

    /// The last paid transaction at or before `period`: the price a grace period runs at.
    func lastPaidPeriod(atOrBefore period: Int) -> Int? {
        (0...period).reversed().first { !periods[$0].version.isTrial }
    }
}

extension ExpirationReason {
    init(expirationIntent: Int) {
        switch expirationIntent {
        case 1: self = .voluntary
        case 2: self = .billingError
        case 3: self = .priceIncrease
        case 4: self = .productNotForSale
        default: self = .other
        }
    }

    init(expiredSubtype subtype: UInt32) {
        switch subtype {
        case Known.voluntary: self = .voluntary
        case Known.billingRetry: self = .billingError
        case Known.priceIncrease: self = .priceIncrease
        case Known.productNotForSale: self = .productNotForSale
        default: self = .other
        }
    }
}
