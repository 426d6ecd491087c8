import SubledgerEvents
import SubledgerLog

extension Projection {
    /// The state of a customer at `asOf`, from the facts signed at or before it (and, with
    /// `atPosition`, recorded before that log position).
    ///
    /// - Parameters:
    ///   - id: an `appAccountToken` in any case, an `originalTransactionId` or a `transactionId`.
    ///   - asOf: the instant, epoch milliseconds; pass the wall clock for "now".
    ///   - atPosition: only events whose record lies before this position (the log's end then).
    ///   - environment: only that environment's subscriptions and purchases; nil for all.
    ///   - catalog: maps product ids to entitlements.
    ///   - evidence: name each subscription's and purchase's `lastEventPosition`.
    /// - Returns: nil when no customer has this id, or none of its events is visible (signed by
    ///   `asOf`, before `atPosition`). The id is resolved on everything folded, or with
    ///   `atPosition` on what was recorded before it (`customerTimelines(_:recordedBefore:)`).
    public func customer(
        _ id: String, asOf: Int64, atPosition: LogPosition? = nil, environment: AppStoreEnvironment? = nil,
        catalog: ProductCatalog? = nil, evidence: Bool = false
    ) -> CustomerState? {
        let resolved = atPosition.map { customerTimelines(id, recordedBefore: $0.rawValue) } ?? customerTimelines(id)
        guard var (customerId, members) = resolved else { return nil }
        members = self.members(members, in: environment)
        let visibility = Visibility(beforePosition: atPosition?.rawValue ?? .max, notAfter: asOf)
        // A subscription with nothing visible is not shown, nor does its environment count.
        members = members.filter { member in timelines[Int(member)].facts.contains { visibility.admits($0, of: timelines[Int(member)]) } }
        guard !members.isEmpty else { return nil }
        let environments = Set(members.map { timelines[Int($0)].key.environment })
        let shownEnvironment = environments.contains(Known.production) ? Known.production : environments.min()
        var subscriptions: [SubscriptionState] = []
        var purchases: [PurchaseState] = []
        var entitledProducts: [String] = []
        for member in members {
            let timeline = timelines[Int(member)]
            let history = SubscriptionHistory(timeline, visibility: visibility)
            // Only the environment the document names entitles: a tester's Sandbox purchase with
            // the same account token granted Production access.
            let entitles = timeline.key.environment == shownEnvironment
            // Facts are in signed-time order: the last one visible is the latest word on it.
            let lastEvent = evidence ? timeline.facts.last { visibility.admits($0, of: timeline) }.map { LogPosition(rawValue: $0.position) } : nil
            if var state = subscriptionState(history, of: timeline, at: asOf) {
                state.lastEventPosition = lastEvent
                if evidence, let (period, _) = history.status(at: asOf) {
                    let transactionId = history.periods[period].version.transactionId
                    state.lastTransactionEventPosition = timeline.facts.last { fact in
                        fact.transaction >= 0 && timeline.transactions[Int(fact.transaction)].transactionId == transactionId && visibility.admits(fact, of: timeline)
                    }.map { LogPosition(rawValue: $0.position) }
                }
                if entitles, state.entitled, let productId = state.productId { entitledProducts.append(productId) }
                subscriptions.append(state)
            }
            for purchase in history.purchases where purchase.version.purchaseDate <= asOf {
                var bought = purchaseState(purchase, at: asOf)
                bought.state.lastEventPosition = lastEvent
                bought.state.environment = text(timeline.key.environment)
                if entitles, bought.entitles, let productId = bought.state.productId { entitledProducts.append(productId) }
                purchases.append(bought.state)
            }
        }
        subscriptions.sort { ($0.firstPurchaseAt ?? .max, $0.originalTransactionId) < ($1.firstPurchaseAt ?? .max, $1.originalTransactionId) }
        purchases.sort { ($0.purchasedAt ?? .max, $0.transactionId) < ($1.purchasedAt ?? .max, $1.transactionId) }

        var entitlements = Set<String>()
        for productId in entitledProducts {
            entitlements.formUnion(catalog?.entitlements(of: productId) ?? [productId])
        }
        if customerId.isEmpty { customerId = id }
        return CustomerState(
            customerId: customerId, asOf: asOf,
            environment: shownEnvironment.flatMap { $0 == 0 ? nil : strings.string($0) },
            entitlements: entitlements.sorted(), subscriptions: subscriptions, purchases: purchases)
    }

    /// The customer id and timelines for a look-up id: a token (any case) first, then an
    /// `originalTransactionId`, then a `transactionId`.
    /// The timelines of `members` in `environment` (all of them for nil).
    func members(_ members: [Int32], in environment: AppStoreEnvironment?) -> [Int32] {
        guard let environment else { return members }
        guard let code = strings.lookUp(environment.rawValue) else { return [] }
        return members.filter { timelines[Int($0)].key.environment == code }
    }

    func customerTimelines(_ id: String) -> (customerId: String, timelines: [Int32])? {
        precondition(keepsTokenIndex, "a rebuild's projection keeps no token index")
        if let token = indexedToken(id), let members = tokenIndex[token] { return (tokenText(token), members) }
        guard let identifier = identifier(lookingUp: id) else { return nil }
        for environment in environmentIDs {
            if let index = timelineIndex[TimelineKey(environment: environment, originalTransactionId: identifier).packed] {
                return customer(of: index)
            }
        }
        for environment in environmentIDs {
            if let index = transactionIndex[TransactionKey(environment: environment, transactionId: identifier).packed] {
                return customer(of: index)
            }
        }
        return nil
    }

    /// As `customerTimelines(_:)`, as the ledger knew the customer when its log ended at
    /// `position`: an id first recorded later names no one, and a token first recorded later
    /// (or an earlier-purchased one delivered later) neither names nor groups the customer.
    /// Grouped among the timelines the id's customer has now and its `originalTransactionId`'s:
    /// a timeline whose token changed since to one of another customer is not found.
    func customerTimelines(_ id: String, recordedBefore position: UInt64) -> (customerId: String, timelines: [Int32])? {
        guard let (_, now) = customerTimelines(id) else { return nil }
        if let token = indexedToken(id) {
            let members = now.filter { customerToken(of: $0, recordedBefore: position) == token }
            return members.isEmpty ? nil : (tokenText(token), members)
        }
        guard let identifier = identifier(lookingUp: id),
            let found = now.first(where: { member in
                let timeline = timelines[Int(member)]
                return timeline.facts.contains { fact in
                    fact.position < position
                        && (timeline.key.originalTransactionId == identifier
                            || (fact.transaction >= 0 && timeline.transactions[Int(fact.transaction)].transactionId == identifier))
                }
            })
        else { return nil }
        if let token = customerToken(of: found, recordedBefore: position) {
            return (tokenText(token), now.filter { customerToken(of: $0, recordedBefore: position) == token })
        }
        let original = timelines[Int(found)].key.originalTransactionId
        let siblings = environmentIDs.compactMap { timelineIndex[TimelineKey(environment: $0, originalTransactionId: original).packed] }
        let members = Set(now + siblings).filter { member in
            timelines[Int(member)].key.originalTransactionId == original && customerToken(of: member, recordedBefore: position) == nil
        }
        return (identifierText(original), members.sorted())
    }

    /// The token `id` is, in any case, when some customer has it: as a UUID first, else as text.
    private func indexedToken(_ id: String) -> CustomerToken? {
        let lowered = id.lowercased()
        if let bits = parseUUID(lowered), tokenIndex[CustomerToken(kind: .uuid, bits: bits)] != nil { return CustomerToken(kind: .uuid, bits: bits) }
        return strings.lookUp(lowered).map { CustomerToken(kind: .text, bits: UInt128($0)) }.flatMap { tokenIndex[$0] == nil ? nil : $0 }
    }

    /// A timeline's customer token as it stood when the log ended at `position`: that of the
    /// earliest-purchased transaction recorded before it, chosen as the fold chooses.
    private func customerToken(of index: Int32, recordedBefore position: UInt64) -> CustomerToken? {
        customerToken(of: timelines[Int(index)], recordedBefore: position)
    }

    /// As `customerToken(of:recordedBefore:)`, of a timeline at hand (an export's part).
    func customerToken(of timeline: borrowing Timeline, recordedBefore position: UInt64) -> CustomerToken? {
        var chosen: (purchase: Int64, token: CustomerToken)?
        for fact in timeline.facts where fact.position < position && fact.transaction >= 0 {
            let version = timeline.transactions[Int(fact.transaction)]
            guard let token = version.token else { continue }
            let purchase = version.purchaseDate == .absent ? Int64.max : version.purchaseDate
            if let chosen, purchase > chosen.purchase || (purchase == chosen.purchase && tokenText(token) >= tokenText(chosen.token)) { continue }
            chosen = (purchase, token)
        }
        return chosen?.token
    }

    /// The customer a timeline belongs to: its token's, or (without a token) its
    /// `originalTransactionId`'s, in every environment.
    private func customer(of index: Int32) -> (customerId: String, timelines: [Int32]) {
        let timeline = timelines[Int(index)]
        if let token = timeline.customerToken { return (tokenText(token), tokenIndex[token] ?? [index]) }
        let original = timeline.key.originalTransactionId
        let members = environmentIDs.compactMap { environment -> Int32? in
            guard let member = timelineIndex[TimelineKey(environment: environment, originalTransactionId: original).packed],
                timelines[Int(member)].customerToken == nil
            else { return nil }
            return member
        }
        return (identifierText(original), members)
    }

    func subscriptionState(_ history: SubscriptionHistory, of timeline: Timeline, at instant: Int64) -> SubscriptionState? {
        guard let (period, status) = history.status(at: instant) else { return nil }
        let version = history.periods[period].version
        let renewal = history.renewals.last
        var state = SubscriptionState(
            originalTransactionId: identifierText(timeline.key.originalTransactionId),
            productId: text(version.productId), subscriptionGroupId: text(version.subscriptionGroup),
            environment: text(timeline.key.environment), status: .active, entitled: true,
            periodType: version.periodType, expiresAt: version.expiresDate.present, gracePeriodExpiresAt: nil,
            autoRenew: renewal.flatMap { $0.autoRenewStatus >= 0 ? $0.autoRenewStatus == 1 : nil },
            autoRenewProductId: renewal.flatMap { text($0.autoRenewProductId) }, expirationReason: nil,
            revocation: nil, revokedAt: nil, priceIncrease: history.priceIncrease,
            billingPlan: version.isMonthlyCommitment ? .monthlyCommitment : .upfront,
            commitment: version.commitmentState, ownership: version.isFamilyShared ? .familyShared : .purchased,
            lastTransactionId: identifierText(version.transactionId), price: version.price.present,
            currency: text(version.currency), storefront: text(version.storefront),
            firstPurchaseAt: history.periods[...period].map(\.version.firstPurchaseDate).min(),
            paidPeriods: history.periods[...period].count { $0.version.isPaidPeriod(at: instant) })
        switch status {
        case .active:
            break
        case .gracePeriod(let endsAt):
            state.status = .gracePeriod
            state.gracePeriodExpiresAt = endsAt
        case .billingRetry:
            // The period has ended for a failed charge: that is the reason, while Apple retries.
            state.status = .billingRetry
            state.entitled = false
            state.expirationReason = .billingError
        case .expired(let reason):
            state.status = .expired
            state.entitled = false
            state.expirationReason = reason
        case .revoked(let revocation, let at):
            state.status = .revoked
            state.entitled = false
            state.revocation = revocation
            state.revokedAt = at
        }
        return state
    }

    private func purchaseState(_ purchase: ResolvedTransaction, at instant: Int64) -> (state: PurchaseState, entitles: Bool) {
        let version = purchase.version
        let revoked = version.revocationDate != .absent && version.revocationDate <= instant
        let state = PurchaseState(
            transactionId: identifierText(version.transactionId), productId: text(version.productId),
            type: text(version.type), purchasedAt: version.purchaseDate.present, price: version.price.present,
            currency: text(version.currency), refunded: revoked && version.isRefund)
        return (state, version.type == Known.nonConsumable && !revoked)
    }

    /// The interned string, or nil for 0.
    func text(_ id: UInt32) -> String? {
        id == 0 ? nil : strings.string(id)
    }
}

extension TransactionVersion {
    var periodType: PeriodType {
        if isTrial { return .trial }
        switch offerType {
        case 1: return .intro
        case 2...: return .offer
        default: return .normal
        }
    }

    var commitmentState: CommitmentState? {
        guard commitmentPeriod >= 0 || commitmentTotal >= 0 || commitmentExpiresDate != .absent || commitmentPrice != .absent else {
            return nil
        }
        return CommitmentState(
            billingPeriodNumber: commitmentPeriod >= 0 ? Int(commitmentPeriod) : nil,
            totalBillingPeriods: commitmentTotal >= 0 ? Int(commitmentTotal) : nil,
            expiresAt: commitmentExpiresDate.present, price: commitmentPrice.present)
    }

    var firstPurchaseDate: Int64 {
        originalPurchaseDate == .absent ? purchaseDate : min(originalPurchaseDate, purchaseDate)
    }

    /// Paid (not a free trial), purchased by `instant` and not fully refunded by then.
    func isPaidPeriod(at instant: Int64) -> Bool {
        guard !isTrial, purchaseDate <= instant else { return false }
        let fullyRefunded = isRefund && revocationDate <= instant && revocationType != Known.refundProrated
        return !fullyRefunded
    }
}

extension Projection {
    /// The customer whose subscription has the most facts: a good example to show (the demo).
    public func busiestCustomer() -> String? {
        guard let index = timelines.indices.max(by: { timelines[$0].facts.count < timelines[$1].facts.count }) else { return nil }
        return customer(of: Int32(index)).customerId
    }
}
