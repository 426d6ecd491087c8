import SubledgerEvents

/// A timeline resolved under a `Visibility`: each transaction at its latest signed version, in
/// purchase order, the renewal snapshots in signed order, and the notifications that carry
/// state of their own (price increases, expiries). Every rule of the contract's Semantics is
/// answered from here, both for one customer (`status(at:)`) and for reports (`segments()`).
struct SubscriptionHistory {
    /// Auto-renewable transactions with a purchase date, by (purchaseDate, transactionId).
    var periods: [ResolvedTransaction] = []
    /// Everything else (consumables, non-consumables, non-renewing), by purchase date.
    var purchases: [ResolvedTransaction] = []
    /// Visible renewal snapshots, by signed date.
    var renewals: [RenewalSnapshot] = []
    /// Visible PRICE_INCREASE and EXPIRED notifications, by time.
    var notes: [Note] = []

    struct Note {
        let time: Int64
        let type: EventType
        let subtype: UInt32
        /// The snapshot the notification carried, if any.
        let renewal: RenewalSnapshot?
    }

    init(_ timeline: borrowing Timeline, visibility: Visibility) {
        var sightings: [Sighting] = []
        sightings.reserveCapacity(timeline.facts.count)
        var renewalSeen = [Bool](repeating: false, count: timeline.renewals.count)
        for fact in timeline.facts where visibility.admits(fact, of: timeline) {
            if fact.transaction >= 0 {
                sightings.append(Sighting(
                    transactionId: timeline.transactions[Int(fact.transaction)].transactionId.raw,
                    signedAt: fact.transactionSignedAt, time: fact.time, version: fact.transaction))
            }
            // In the facts' order, which ties by content, not in the order first folded: a
            // stable sort then leaves snapshots no rule tells apart as their facts stand.
            if fact.renewal >= 0 && !renewalSeen[Int(fact.renewal)] {
                renewalSeen[Int(fact.renewal)] = true
                renewals.append(timeline.renewals[Int(fact.renewal)])
            }
            if fact.type == EventType.priceIncrease.code || fact.type == EventType.expired.code {
                notes.append(Note(
                    time: fact.time, type: EventType(code: fact.type)!, subtype: fact.subtype,
                    renewal: fact.renewal >= 0 ? timeline.renewals[Int(fact.renewal)] : nil))
            }
        }
        if visibility.notAfter != .max { renewals += Self.backfilledRenewals(of: timeline, visibility: visibility, seen: renewalSeen) }
        renewals.sort { $0.ordersBefore($1) }

        // The closure captures the versions, not the timeline: capturing a borrowed timeline
        // copied it, retaining and releasing its three arrays, for every timeline a rebuild sums.
        let versions = timeline.transactions
        // Stable: versions no rule tells apart stay in their facts' order.
        sightings.sort { a, b in
            if a.transactionId != b.transactionId { return a.transactionId < b.transactionId }
            if a.signedAt != b.signedAt { return a.signedAt < b.signedAt }
            if a.time != b.time { return a.time < b.time }
            return versions[Int(a.version)].ordersBefore(versions[Int(b.version)])
        }
        var start = 0
        while start < sightings.count {
            var end = start + 1
            while end < sightings.count, sightings[end].transactionId == sightings[start].transactionId { end += 1 }
            let resolved = ResolvedTransaction(sightings[start..<end], versions: timeline.transactions)
            if resolved.version.isSubscription {
                if resolved.version.purchaseDate != .absent { periods.append(resolved) }
            } else {
                purchases.append(resolved)
            }
            start = end
        }
        periods.sort { a, b in
            a.version.purchaseDate != b.version.purchaseDate
                ? a.version.purchaseDate < b.version.purchaseDate
                : a.version.transactionId.raw < b.version.transactionId.raw
        }
        purchases.sort { $0.version.purchaseDate < $1.version.purchaseDate }
    }

    /// Renewal infos fetched from the App Store Server API that were signed after the instant
    /// asked, dated instead from the purchase of the transaction they follow (the latest one
    /// purchased by their signing) when nothing signed between that purchase and them is known:
    /// Apple signs them when asked, and they describe the subscription since that transaction
    /// (the contract's backfill), so a backfilled subscription's auto-renew state and expiration
    /// reason answer for instants since.
    private static func backfilledRenewals(of timeline: borrowing Timeline, visibility: Visibility, seen: [Bool]) -> [RenewalSnapshot] {
        var found: [RenewalSnapshot] = []
        for fact in timeline.facts
        where fact.type == EventType.renewalInfoBackfilled.code && fact.renewal >= 0 && !seen[Int(fact.renewal)] && fact.position < visibility.beforePosition {
            var snapshot = timeline.renewals[Int(fact.renewal)]
            let signed = snapshot.signedDate
            var purchased: Int64?
            for other in timeline.facts where other.transaction >= 0 && other.position < visibility.beforePosition {
                let date = timeline.transactions[Int(other.transaction)].purchaseDate
                if date != .absent, date <= signed, date > purchased ?? .min { purchased = date }
            }
            guard let purchased, purchased <= visibility.notAfter,
                !timeline.renewals.contains(where: { $0.signedDate > purchased && $0.signedDate < signed })
            else { continue }
            snapshot.signedDate = purchased
            found.append(snapshot)
        }
        return found
    }

    fileprivate struct Sighting {
        let transactionId: UInt64
        let signedAt: Int64
        let time: Int64
        let version: Int32
    }
}

/// One transaction as last signed, with what its earlier versions tell: the expiry before any
/// renewal-date extension, and the refunds and reversals it went through.
struct ResolvedTransaction {
    let version: TransactionVersion
    /// The smallest `expiresDate` seen: the paid end before extensions moved it.
    let baseExpiresDate: Int64
    let refundChanges: [RefundChange]

    enum RefundChange {
        /// Revoked at `at` (its `revocationDate`) for `amount` more than stood refunded before,
        /// `standing` in all (more than `amount` when a prorated refund is topped up);
        /// `familyRevoke` is not a refund.
        case refunded(at: Int64, amount: Int64, standing: Int64, familyRevoke: Bool)
        /// The revocation was undone at `at` (when the restored version was signed), for all that
        /// stood refunded.
        case reversed(at: Int64, amount: Int64, familyRevoke: Bool)
    }

    fileprivate init(_ sightings: ArraySlice<SubscriptionHistory.Sighting>, versions: [TransactionVersion]) {
        var changes: [RefundChange] = []
        var baseExpires = Int64.max
        // What stands refunded: a later version refunding more (a prorated refund, then a full
        // one) books the difference at its own revocationDate.
        // Entitlement ended at the first refund still standing: a later one cannot give it back.
        var revoked: (amount: Int64, familyRevoke: Bool, since: Int64)?
        for sighting in sightings {
            let version = versions[Int(sighting.version)]
            if version.expiresDate != .absent { baseExpires = min(baseExpires, version.expiresDate) }
            if version.revocationDate != .absent {
                let before = revoked?.amount ?? 0
                if revoked == nil || version.refundedAmount > before {
                    changes.append(.refunded(
                        at: version.revocationDate, amount: version.refundedAmount - before, standing: version.refundedAmount,
                        familyRevoke: version.isFamilyRevoke))
                    revoked = (version.refundedAmount, version.isFamilyRevoke, min(revoked?.since ?? .max, version.revocationDate))
                }
            } else if let undone = revoked {
                changes.append(.reversed(at: sighting.time, amount: undone.amount, familyRevoke: undone.familyRevoke))
                revoked = nil
            }
        }
        var latest = versions[Int(sightings.last!.version)]
        if let since = revoked?.since, latest.revocationDate != .absent { latest.revocationDate = min(latest.revocationDate, since) }
        version = latest
        baseExpiresDate = baseExpires == .max ? .absent : baseExpires
        refundChanges = changes
    }
}

extension TransactionVersion {
    var isSubscription: Bool {
        type == Known.autoRenewable || (type == 0 && expiresDate != .absent)
    }

    /// A free trial: offerDiscountType FREE_TRIAL, or (older payloads without it) an
    /// introductory offer at price 0.
    var isTrial: Bool {
        offerDiscountType == Known.freeTrial || (offerDiscountType == 0 && offerType == 1 && price == 0)
    }

    var isFamilyShared: Bool { ownership == Known.familyShared }

    var isMonthlyCommitment: Bool { billingPlanType == Known.monthly }

    /// Revenue: a unique transaction with price > 0, purchased (not family-shared).
    var isRevenue: Bool { price != .absent && price > 0 && !isFamilyShared }

    var isRefund: Bool { revocationDate != .absent && !isFamilyRevoke }

    /// A revocation that takes a family member's access, not a refund: `revocationType`
    /// FAMILY_REVOKE or, in payloads from before that field, any revocation of a family-shared
    /// copy (which earned nothing to refund; the purchaser's own transaction shows a refund).
    var isFamilyRevoke: Bool {
        revocationType == Known.familyRevoke || (revocationType == 0 && isFamilyShared)
    }

    /// `price × revocationPercentage / 100000` for a prorated refund, else the price.
    var refundedAmount: Int64 {
        let price = self.price == .absent ? 0 : self.price
        guard revocationType == Known.refundProrated, revocationPercentage != .absent else { return price }
        return TransactionFacts.proratedRefund(of: price, percentage: revocationPercentage)
    }

    /// A deterministic order between different versions with the same signed time: the one
    /// that says more (revoked, later expiry) counts as the later.
    func ordersBefore(_ other: TransactionVersion) -> Bool {
        let mine = (revocationDate != .absent ? 1 : 0, revocationDate, expiresDate, purchaseDate, price, isUpgraded ? 1 : 0)
        let theirs = (
            other.revocationDate != .absent ? 1 : 0, other.revocationDate, other.expiresDate, other.purchaseDate,
            other.price, other.isUpgraded ? 1 : 0
        )
        return mine < theirs
    }
}

extension RenewalSnapshot {
    func ordersBefore(_ other: RenewalSnapshot) -> Bool {
        let mine = (signedDate, gracePeriodExpiresDate, Int(expirationIntent), Int(billingRetry), Int(autoRenewStatus), Int(priceIncreaseStatus))
        let theirs = (
            other.signedDate, other.gracePeriodExpiresDate, Int(other.expirationIntent), Int(other.billingRetry),
            Int(other.autoRenewStatus), Int(other.priceIncreaseStatus)
        )
        return mine < theirs
    }
}
