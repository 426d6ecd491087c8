import SubledgerAppStore

/// The auto-renewable subscription's life: first purchase, each period's events in time order,
/// what happens at each period's end, lapses and returns.
extension CustomerSimulation {
    enum Intro {
        case none, freeTrial, payAsYouGo, payUpFront
    }

    enum PeriodEvent: Equatable {
        case cancel, reenable, priceIncrease, acceptPriceIncrease, upgrade, downgrade, offerCode
        case refundRequest, refundDecision, refundReversal, renewalExtension, familyRevoke
    }

    enum PeriodOutcome {
        case reachedExpiry
        case upgraded
        case revoked(at: Int64)
    }

    /// Pending events of one period, earliest first (ties keep insertion order).
    struct EventQueue {
        private var items: [(at: Int64, event: PeriodEvent)] = []

        mutating func add(_ event: PeriodEvent, at instant: Int64?) {
            guard let instant else { return }
            let position = items.firstIndex { $0.at > instant } ?? items.count
            items.insert((instant, event), at: position)
        }

        mutating func next() -> (at: Int64, event: PeriodEvent)? {
            items.isEmpty ? nil : items.removeFirst()
        }
    }

    // MARK: Starting

    /// SUBSCRIBED / INITIAL_BUY, possibly with an intro offer, possibly shared with family.
    func subscribe(at instant: Int64) throws(PastHorizon) {
        let at = try advance(to: instant)
        product = drawProduct()
        let intro = drawIntro(for: product)
        let identifiers = nextIdentifiers()
        originalTransactionId = identifiers.transactionId
        originalPurchaseDate = at
        anchor = at
        var offer: Offer?
        let expires: Int64
        let price: Int64
        switch intro {
        case .freeTrial:
            offer = Offer(type: .introductory, identifier: nil, discount: .freeTrial, period: "P1W")
            expires = at + 7 * Self.day
            price = 0
            anchor = expires
            anchorMonths = 0
        case .payAsYouGo:
            offer = Offer(type: .introductory, identifier: nil, discount: .payAsYouGo, period: "P3M")
            anchorMonths = 1
            expires = UTC.adding(months: 1, to: at)
            price = storefront.discountedMonth(product)
            introMonthsLeft = 2
            nextOffer = offer
        case .payUpFront:
            offer = Offer(type: .introductory, identifier: nil, discount: .payUpFront, period: "P3M")
            anchorMonths = 3
            expires = UTC.adding(months: 3, to: at)
            price = storefront.upFrontQuarter(product)
        case .none:
            anchorMonths = product.billingMonths
            expires = UTC.adding(months: anchorMonths, to: at)
            price = storefront.price(product)
        }
        if product.isCommitment {
            commitmentExpires = UTC.adding(months: anchorMonths + Product.commitmentPeriods - 1, to: anchor)
        }
        transaction = makeTransaction(identifiers: identifiers, product: product, purchaseDate: at, expiresDate: expires,
                                      price: price, offer: offer, reason: .purchase, commitmentPeriod: product.isCommitment ? 1 : nil)
        phase = .active
        recordPurchase(at: at)
        if product.rank > 1, random.chance(rates.familySharing) {
            startFamilySharing(at: at)
        }
        notify(.subscribed, .initialBuy, at: at)
    }

    func drawProduct() -> Product {
        let weights = [rates.basicMonthly, rates.proMonthly, rates.proYearly, rates.proYearlyCommitment]
        return [Product.basicMonthly, .proMonthly, .proYearly, .proYearlyCommitment][random.weightedIndex(weights)]
    }

    private func drawIntro(for product: Product) -> Intro {
        guard !product.isCommitment else { return .none }
        let draw = random.unit()
        if draw < rates.freeTrial { return .freeTrial }
        guard product.isPlainMonthly else { return .none }
        if draw < rates.freeTrial + rates.payAsYouGo { return .payAsYouGo }
        if draw < rates.freeTrial + rates.payAsYouGo + rates.payUpFront { return .payUpFront }
        return .none
    }

    // MARK: One period

    /// Lives the current period and what follows its end; `false` once the subscription is over
    /// for good.
    func livePeriod() throws(PastHorizon) -> Bool {
        switch try periodEvents() {
        case .upgraded:
            return true
        case .revoked(let at):
            return try lapse(after: at, winBack: false)
        case .reachedExpiry:
            return try endOfPeriod()
        }
    }

    private var isTrial: Bool { transaction.offerDiscountType == .freeTrial }

    /// Months the current transaction covers (for scaling monthly rates).
    private var periodMonths: Int {
        transaction.offerDiscountType == .payUpFront ? 3 : product.billingMonths
    }

    private func periodEvents() throws(PastHorizon) -> PeriodOutcome {
        let purchase = transaction.purchaseDate ?? 0
        let expires = transaction.expiresDate ?? 0
        let months = periodMonths
        var queue = EventQueue()
        if isTrial {
            if !random.chance(rates.trialConversion) {
                queue.add(.cancel, at: instant(between: purchase, and: expires))
            }
        } else {
            if chance(perMonth: rates.cancelPerMonth, months: months) {
                queue.add(.cancel, at: instant(between: purchase, and: expires))
            }
            if !product.isCommitment {
                if storefront.increasedPrice(product) != nil, !priceIncreaseOffered, chance(perMonth: rates.priceIncreasePerMonth, months: months) {
                    queue.add(.priceIncrease, at: instant(between: purchase, and: expires))
                }
                if product == .basicMonthly, chance(perMonth: rates.upgradePerMonth, months: months) {
                    queue.add(.upgrade, at: instant(between: purchase, and: expires))
                }
                if product.rank > 1, chance(perMonth: rates.downgradePerMonth, months: months) {
                    queue.add(.downgrade, at: instant(between: purchase, and: expires))
                }
                if product.isPlainMonthly, chance(perMonth: rates.offerCodePerMonth, months: months) {
                    queue.add(.offerCode, at: instant(between: purchase, and: expires))
                }
                if currentSale != nil, random.chance(rates.refundRequest) {
                    queue.add(.refundRequest, at: instant(between: purchase, and: min(expires, purchase + 14 * Self.day)))
                }
                if chance(perMonth: rates.renewalExtensionPerMonth, months: months) {
                    queue.add(.renewalExtension, at: instant(between: purchase, and: expires))
                }
            }
        }
        if let member, !member.revoked, chance(perMonth: rates.familyRevokePerMonth, months: months) {
            queue.add(.familyRevoke, at: instant(between: purchase, and: expires))
        }

        while let (instant, event) = queue.next() {
            if phase == .revoked, event != .refundReversal { continue }
            switch event {
            case .cancel:
                guard autoRenew else { continue }
                let at = try advance(to: instant)
                autoRenew = false
                notify(.didChangeRenewalStatus, .autoRenewDisabled, at: at)
                if !isTrial, random.chance(rates.reenable) {
                    queue.add(.reenable, at: self.instant(between: at, and: expires))
                }
            case .reenable:
                guard !autoRenew else { continue }
                let at = try advance(to: instant)
                autoRenew = true
                notify(.didChangeRenewalStatus, .autoRenewEnabled, at: at)
            case .priceIncrease:
                guard nextProduct == nil, nextOffer == nil else { continue }
                let at = try advance(to: instant)
                priceIncreaseOffered = true
                increasedProduct = product
                priceIncreaseStatus = .customerHasNotResponded
                lastPriceIncrease = .pending
                notify(.priceIncrease, .pending, at: at)
                if random.chance(rates.priceIncreaseAccepted) {
                    queue.add(.acceptPriceIncrease, at: self.instant(between: at, and: expires))
                }
            case .acceptPriceIncrease:
                guard priceIncreaseStatus == .customerHasNotResponded, increasedProduct == product else { continue }
                let at = try advance(to: instant)
                priceIncreaseStatus = .customerConsentedOrWasNotified
                lastPriceIncrease = .accepted
                notify(.priceIncrease, .accepted, at: at)
            case .upgrade:
                try upgrade(at: instant)
                return .upgraded
            case .downgrade:
                guard autoRenew, nextProduct == nil, nextOffer == nil else { continue }
                let at = try advance(to: instant)
                nextProduct = .basicMonthly
                notify(.didChangeRenewalPref, .downgrade, at: at)
            case .offerCode:
                guard autoRenew, nextProduct == nil, nextOffer == nil, priceIncreaseStatus == nil else { continue }
                let at = try advance(to: instant)
                nextOffer = Offer(type: .offerCode, identifier: "SPRING50", discount: .payAsYouGo, period: "P1M")
                notify(.offerRedeemed, at: at)
            case .refundRequest:
                let at = try advance(to: instant)
                if random.chance(rates.consumptionRequest) {
                    notify(.consumptionRequest, at: at, consumptionReason: drawConsumptionReason())
                }
                queue.add(.refundDecision, at: followUp(after: at, before: expires))
            case .refundDecision:
                guard random.chance(rates.refundGranted) else {
                    notify(.refundDeclined, at: try advance(to: instant))
                    continue
                }
                let at = try refund(at: instant)
                if random.chance(rates.refundReversed), let reversal = followUp(after: at, before: expires),
                   context.grid.index(of: reversal) == context.grid.index(of: at) {
                    queue.add(.refundReversal, at: reversal)
                } else {
                    return .revoked(at: at)
                }
            case .refundReversal:
                try reverseRefund(at: instant)
            case .renewalExtension:
                try extendRenewal(at: instant)
            case .familyRevoke:
                try revokeFamilyMember(at: instant)
            }
        }
        return .reachedExpiry
    }

    /// One to three days after `instant`, if that is still an hour before `limit`.
    private func followUp(after instant: Int64, before limit: Int64) -> Int64? {
        guard let at = self.instant(between: instant + Self.day, and: instant + 3 * Self.day), at < limit - Self.hour else { return nil }
        return at
    }

    func drawConsumptionReason() -> ConsumptionRequestReason {
        [.unintendedPurchase, .fulfillmentIssue, .unsatisfiedWithPurchase, .legal, .other][random.int(in: 0...4)]
    }

    // MARK: The period's end

    private func endOfPeriod() throws(PastHorizon) -> Bool {
        let expires = transaction.expiresDate ?? 0
        if isTrial {
            if autoRenew {
                try renew(scheduledAt: expires)
                return true
            }
            try expire(at: expires, .voluntary)
            return try lapse(after: expires, winBack: false)
        }
        // Inside a commitment the monthly billing goes on even with auto-renew off: the
        // customer committed to twelve payments.
        let inCommitment = transaction.commitmentInfo.map { ($0.billingPeriodNumber ?? 0) < ($0.totalBillingPeriods ?? 0) } ?? false
        if !inCommitment {
            if !autoRenew {
                try expire(at: expires, .voluntary)
                return try lapse(after: expires, winBack: true)
            }
            if priceIncreaseStatus == .customerHasNotResponded, increasedProduct == (nextProduct ?? product) {
                try expire(at: expires, .priceIncrease)
                return try lapse(after: expires, winBack: true)
            }
            if random.chance(rates.productNotForSale) {
                try expire(at: expires, .productNotForSale)
                return try lapse(after: expires, winBack: false)
            }
        }
        if random.chance(rates.billingFailure) {
            return try failBilling(at: expires)
        }
        try renew(scheduledAt: expires)
        return true
    }

    /// DID_FAIL_TO_RENEW / GRACE_PERIOD, then recovery in the grace period, or
    /// GRACE_PERIOD_EXPIRED and the billing retry: recovery or EXPIRED / BILLING_RETRY.
    private func failBilling(at expires: Int64) throws(PastHorizon) -> Bool {
        let at = try advance(to: expires)
        phase = .grace
        inBillingRetry = true
        gracePeriodExpires = expires + Self.gracePeriod
        expirationIntent = .billingError
        history.set(.grace(Billing(of: transaction, currency: storefront.currency)), at: at)
        notify(.didFailToRenew, .gracePeriod, at: at)

        // Recoveries in grace come in its first week, so the recovered transaction still spans
        // at least 21 days and its period reads unambiguously as a month.
        if random.chance(rates.graceRecovery), let recovery = instant(between: expires, and: expires + 7 * Self.day) {
            paidService.recoveredInGrace(from: expires, at: recovery)
            try renew(scheduledAt: expires, chargedAt: recovery, subtype: .billingRecovery)
            return true
        }
        let graceEnd = try advance(to: expires + Self.gracePeriod)
        phase = .billingRetry
        history.set(.none(.billingError), at: graceEnd)
        notify(.gracePeriodExpired, at: graceEnd)

        let retryEnd = expires + Self.billingRetryPeriod
        if !product.isCommitment, random.chance(rates.retryRecovery), let recovery = instant(between: graceEnd, and: retryEnd) {
            try renew(scheduledAt: recovery, chargedAt: recovery, subtype: .billingRecovery, restartSchedule: true)
            return true
        }
        try expire(at: retryEnd, .billingRetry)
        return try lapse(after: retryEnd, winBack: true)
    }

    /// DID_RENEW: the next transaction, with a pending downgrade, offer or accepted price
    /// increase applied. A recovery in grace keeps the renewal schedule; one in billing retry
    /// restarts it at the charge.
    private func renew(scheduledAt scheduled: Int64, chargedAt charged: Int64? = nil, subtype: NotificationSubtype? = nil,
                       restartSchedule: Bool = false) throws(PastHorizon) {
        let at = try advance(to: charged ?? scheduled)
        let renewing = nextProduct ?? product
        if restartSchedule {
            anchor = at
            anchorMonths = renewing.billingMonths
        } else if renewing.billingMonths != product.billingMonths {
            anchor = scheduled
            anchorMonths = renewing.billingMonths
        } else {
            anchorMonths += renewing.billingMonths
        }
        let offer = nextOffer
        let price = renewalPrice(of: renewing, offer: offer)
        if offer?.type == .introductory {
            introMonthsLeft -= 1
            nextOffer = introMonthsLeft > 0 ? offer : nil
        } else {
            nextOffer = nil
        }
        var commitmentPeriod: Int?
        if renewing.isCommitment {
            let previous = transaction.commitmentInfo?.billingPeriodNumber ?? Product.commitmentPeriods
            commitmentPeriod = previous < Product.commitmentPeriods ? previous + 1 : 1
            if commitmentPeriod == 1 {
                commitmentExpires = UTC.adding(months: anchorMonths + Product.commitmentPeriods - 1, to: anchor)
            }
        }
        product = renewing
        nextProduct = nil
        expirationIntent = nil
        inBillingRetry = false
        gracePeriodExpires = nil
        transaction = makeTransaction(product: renewing, purchaseDate: at, expiresDate: UTC.adding(months: anchorMonths, to: anchor),
                                      price: price, offer: offer, reason: .renewal, commitmentPeriod: commitmentPeriod)
        phase = .active
        recordPurchase(at: at)
        notify(.didRenew, subtype, at: at)
    }

    /// Why an EXPIRED notification is sent.
    enum Expiry {
        case voluntary, billingRetry, priceIncrease, productNotForSale

        var subtype: NotificationSubtype {
            switch self {
            case .voluntary: .voluntary
            case .billingRetry: .billingRetry
            case .priceIncrease: .priceIncrease
            case .productNotForSale: .productNotForSale
            }
        }

        var intent: ExpirationIntent {
            switch self {
            case .voluntary: .customerCancelled
            case .billingRetry: .billingError
            case .priceIncrease: .customerDidNotConsentToPriceIncrease
            case .productNotForSale: .productNotAvailable
            }
        }

        var reason: EndReason {
            switch self {
            case .voluntary: .voluntary
            case .billingRetry: .billingError
            case .priceIncrease: .priceIncrease
            case .productNotForSale: .productNotForSale
            }
        }
    }

    /// EXPIRED, with the renewal info's `expirationIntent` saying why.
    private func expire(at instant: Int64, _ expiry: Expiry) throws(PastHorizon) {
        let at = try advance(to: instant)
        let wasPaid = !isTrial
        phase = .expired
        expirationIntent = expiry.intent
        autoRenew = false
        inBillingRetry = false
        gracePeriodExpires = nil
        if wasPaid, expiry != .productNotForSale {
            winBackOffers = [product.rank > 1 ? "winback.pro" : "winback.basic"]
        }
        history.set(.none(expiry.reason), at: at)
        notify(.expired, expiry.subtype, at: at)
    }

    // MARK: Returning

    /// After an expiry or refund: the customer may come back one day to four months later.
    private func lapse(after instant: Int64, winBack eligible: Bool) throws(PastHorizon) -> Bool {
        guard random.chance(rates.resubscribe), let at = self.instant(between: instant + Self.day, and: instant + 120 * Self.day) else {
            return false
        }
        try resubscribe(at: at, winBack: eligible && winBackOffers != nil && random.chance(rates.winBack))
        return true
    }

    /// SUBSCRIBED / RESUBSCRIBE: same original transaction, a new first period, no intro offer;
    /// with a win-back offer, one discounted month.
    private func resubscribe(at instant: Int64, winBack: Bool) throws(PastHorizon) {
        let at = try advance(to: instant)
        var offer: Offer?
        if winBack {
            let tier = product.rank > 1 ? "pro" : "basic"
            product = product.rank > 1 ? .proMonthly : .basicMonthly
            offer = Offer(type: .winBack, identifier: "winback.\(tier)", discount: .payAsYouGo, period: "P1M")
        } else {
            product = drawProduct()
        }
        autoRenew = true
        nextProduct = nil
        nextOffer = nil
        introMonthsLeft = 0
        priceIncreaseStatus = nil
        increasedProduct = nil
        expirationIntent = nil
        inBillingRetry = false
        gracePeriodExpires = nil
        winBackOffers = nil
        anchor = at
        anchorMonths = product.billingMonths
        if product.isCommitment {
            commitmentExpires = UTC.adding(months: Product.commitmentPeriods, to: at)
        }
        let price = offer == nil ? storefront.price(product) : storefront.discountedMonth(product)
        transaction = makeTransaction(product: product, purchaseDate: at, expiresDate: UTC.adding(months: anchorMonths, to: at),
                                      price: price, offer: offer, reason: .purchase, commitmentPeriod: product.isCommitment ? 1 : nil)
        phase = .active
        recordPurchase(at: at)
        notify(.subscribed, .resubscribe, at: at)
    }

    // MARK: Changes inside a period

    /// DID_CHANGE_RENEWAL_PREF / UPGRADE: basic → pro at once; the old transaction ends now
    /// (Apple marks it `isUpgraded`) and a new one starts.
    private func upgrade(at instant: Int64) throws(PastHorizon) {
        let at = try advance(to: instant)
        let target: Product = random.chance(0.75) ? .proMonthly : .proYearly
        paidService.cut(at: at)
        product = target
        nextProduct = nil
        nextOffer = nil
        introMonthsLeft = 0
        autoRenew = true
        if increasedProduct != target {
            priceIncreaseStatus = nil
            increasedProduct = nil
        }
        anchor = at
        anchorMonths = target.billingMonths
        transaction = makeTransaction(product: target, purchaseDate: at, expiresDate: UTC.adding(months: anchorMonths, to: at),
                                      price: storefront.price(target), offer: nil, reason: .purchase)
        phase = .active
        recordPurchase(at: at)
        notify(.didChangeRenewalPref, .upgrade, at: at)
    }

    /// REFUND of the current transaction, full or prorated by the unused share of the period;
    /// access ends now. Returns the refund instant.
    private func refund(at instant: Int64) throws(PastHorizon) -> Int64 {
        let at = try advance(to: instant)
        let price = transaction.price ?? 0
        let purchase = transaction.purchaseDate ?? at, expires = transaction.expiresDate ?? at
        if random.chance(rates.proratedRefund) {
            let unusedPercent = max(1, (expires - at) * 100 / max(expires - purchase, 1))
            let percentage = unusedPercent * 1000
            transaction.revocationType = .refundProrated
            transaction.revocationPercentage = percentage
            refundedAmount = roundHalfAwayFromZero(price * percentage, dividedBy: 100_000)
        } else {
            transaction.revocationType = .refundFull
            refundedAmount = price
        }
        transaction.revocationDate = at
        transaction.revocationReason = random.chance(0.25) ? .appIssue : .other
        phase = .revoked
        autoRenewBeforeRefund = autoRenew
        autoRenew = false
        if let currentSale {
            bookRefund(of: currentSale, at: at, amount: refundedAmount, count: 1)
        }
        paidService.cut(at: at)
        history.set(.none(.refund), at: at)
        notify(.refund, at: at)
        try revokeFamilyMember(at: at)
        return at
    }

    /// REFUND_REVERSED: the transaction is whole again and access resumes.
    private func reverseRefund(at instant: Int64) throws(PastHorizon) {
        let at = try advance(to: instant)
        transaction.revocationDate = nil
        transaction.revocationReason = nil
        transaction.revocationType = nil
        transaction.revocationPercentage = nil
        phase = .active
        autoRenew = autoRenewBeforeRefund
        if let currentSale {
            bookRefund(of: currentSale, at: at, amount: -refundedAmount, count: -1)
        }
        paidService.restore()
        history.set(.paid(Billing(of: transaction, currency: storefront.currency)), at: at)
        notify(.refundReversed, at: at)
    }

    /// RENEWAL_EXTENDED: the developer moves this period's end a week later; later renewals
    /// count from the new date.
    private func extendRenewal(at instant: Int64) throws(PastHorizon) {
        let at = try advance(to: instant)
        let extended = (transaction.expiresDate ?? at) + 7 * Self.day
        transaction.expiresDate = extended
        anchor = extended
        anchorMonths = 0
        history.set(.paid(Billing(of: transaction, currency: storefront.currency)), at: at)
        notify(.renewalExtended, at: at)
    }
}

/// `value / divisor` rounded half away from zero (`divisor` positive).
func roundHalfAwayFromZero(_ value: Int64, dividedBy divisor: Int64) -> Int64 {
    value >= 0 ? (value + divisor / 2) / divisor : -((-value + divisor / 2) / divisor)
}
