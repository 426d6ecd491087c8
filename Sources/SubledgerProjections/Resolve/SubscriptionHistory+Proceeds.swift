import SubledgerCore

/// Apple's proceeds rates, in percent.
enum ProceedsRate {
    static let firstYear: Int64 = 70
    static let afterOneYear: Int64 = 85
    static let smallBusiness: Int64 = 85
    static let oneYear: Int64 = 365 * UTCCalendar.millisecondsPerDay
    /// A lapse longer than this restarts the year of paid service.
    static let lapseLimit: Int64 = 60 * UTCCalendar.millisecondsPerDay

    /// `amount × rate / 100`, rounded half away from zero.
    static func proceeds(_ amount: Int64, rate: Int64) -> Int64 {
        divideRoundingHalfAwayFromZero(amount * rate, 100)
    }
}

extension SubscriptionHistory {
    /// The proceeds rate of each period: 85 % once the subscription has one year of paid
    /// service in its group before the period's purchase, else 70 %.
    ///
    /// Paid service is the time each paid period covered until its original expiry (extensions
    /// of the renewal date don't count), the next purchase or its revocation, and the billing
    /// grace period after its expiry when the subscription recovered in it (Apple: no
    /// interruption to the days of paid service); free trials add nothing; upgrades and
    /// downgrades continue the count; a gap of more than 60 days between the end of entitlement
    /// and the next purchase starts the count again.
    func proceedsRates() -> [Int64] {
        var rates: [Int64] = []
        rates.reserveCapacity(periods.count)
        var paidService: Int64 = 0
        var entitledUntil: Int64?
        for (index, period) in periods.enumerated() {
            let version = period.version
            if let entitledUntil, version.purchaseDate > entitledUntil,
                version.purchaseDate - entitledUntil > ProceedsRate.lapseLimit
            {
                paidService = 0
            }
            rates.append(paidService >= ProceedsRate.oneYear ? ProceedsRate.afterOneYear : ProceedsRate.firstYear)
            let revocation = version.revocationDate == .absent ? Int64.max : version.revocationDate
            if !version.isTrial {
                let paidEnd = period.baseExpiresDate.present ?? version.expiresDate.present ?? version.purchaseDate
                let next = nextStart(after: index)
                let end = min(paidEnd, next, revocation)
                paidService &+= max(0, end &- version.purchaseDate)
                if index + 1 < periods.count, let expiry = missedRenewal(before: index + 1) {
                    paidService &+= max(0, min(next, revocation) &- expiry)
                }
            }
            let entitlementEnd = min(version.expiresDate.present ?? .max, revocation)
            entitledUntil = max(entitledUntil ?? .min, entitlementEnd)
        }
        return rates
    }
}
