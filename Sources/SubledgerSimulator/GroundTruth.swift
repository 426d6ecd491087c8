import SubledgerAppStore
import SubledgerCore

/// The reports `expected.json` promises, accumulated customer by customer from the
/// simulation's own model (access changes, purchases, revenue entries), never from the
/// notifications. Customers are independent, so nothing here grows with their number.
struct GroundTruth {
    struct RevenueRow {
        var grossSales: Int64 = 0
        var refunds: Int64 = 0
        var proceeds: Int64 = 0
        var transactions = 0
        var refundedTransactions = 0
        var hasActivity = false
    }

    struct MRRRow {
        /// Exact MRR × 12 (each price times its twelfths), so it is also the exact ARR.
        var twelfths: Int64 = 0
        var activeSubscriptions = 0
        var activeTrials = 0
        var activeCommitments = 0
        var committedRevenueRemaining: Int64 = 0
    }

    struct ChurnRow {
        var activeAtStart = 0
        var newPaid = 0
        var churned = 0
        var byReason = [Int](repeating: 0, count: EndReason.allCases.count)
        var reactivated = 0
        var trialsStarted = 0
        var trialsConverted = 0
        var commitmentsStarted = 0
        var commitmentsCompleted = 0
        var commitmentsDefaulted = 0
    }

    let grid: MonthGrid
    private var revenue: [[RevenueRow]]
    private var mrr: [[MRRRow]]
    private var churn: [ChurnRow]

    init(grid: MonthGrid) {
        self.grid = grid
        let periods = grid.periods.count
        revenue = Array(repeating: Array(repeating: RevenueRow(), count: Currency.allCases.count), count: periods)
        mrr = Array(repeating: Array(repeating: MRRRow(), count: Currency.allCases.count), count: periods)
        churn = Array(repeating: ChurnRow(), count: periods)
    }

    mutating func add(_ outcome: CustomerOutcome) {
        addRevenue(outcome.revenue)
        addSubscription(outcome.history)
    }

    /// Proceeds are rounded per transaction and period: each transaction's sales minus refunds
    /// booked in one period, times its rate, rounded half away from zero.
    private mutating func addRevenue(_ entries: [RevenueEntry]) {
        let sorted = entries.sorted { ($0.sale, $0.period) < ($1.sale, $1.period) }
        var index = 0
        while index < sorted.count {
            let first = sorted[index]
            var sales: Int64 = 0, refunds: Int64 = 0, transactions = 0, refunded = 0
            while index < sorted.count, sorted[index].sale == first.sale, sorted[index].period == first.period {
                sales += sorted[index].sales
                refunds += sorted[index].refunds
                transactions += sorted[index].transactions
                refunded += sorted[index].refundedTransactions
                index += 1
            }
            var row = revenue[first.period][first.currency.rawValue]
            row.grossSales += sales
            row.refunds += refunds
            row.proceeds += roundHalfAwayFromZero((sales - refunds) * first.rate, dividedBy: 100)
            row.transactions += transactions
            row.refundedTransactions += refunded
            row.hasActivity = true
            revenue[first.period][first.currency.rawValue] = row
        }
    }

    private mutating func addSubscription(_ history: SubscriptionHistory) {
        let changes = history.changes
        guard !changes.isEmpty else { return }
        for (index, period) in grid.periods.enumerated() {
            if let access = history.access(at: period.to) {
                switch access {
                case .trial(let currency):
                    mrr[index][currency.rawValue].activeTrials += 1
                case .paid(let billing), .grace(let billing):
                    var row = mrr[index][billing.currency.rawValue]
                    row.twelfths += billing.price * billing.twelfths
                    row.activeSubscriptions += 1
                    if let commitment = billing.commitment {
                        row.activeCommitments += 1
                        row.committedRevenueRemaining += Int64(commitment.total - commitment.period) * billing.price
                    }
                    mrr[index][billing.currency.rawValue] = row
                case .none:
                    break
                }
            }
            addChurn(history, period: period, into: &churn[index])
        }
    }

    private func addChurn(_ history: SubscriptionHistory, period: MonthGrid.Period, into row: inout ChurnRow) {
        let changes = history.changes
        if history.access(at: period.from)?.billing != nil {
            row.activeAtStart += 1
        }
        var churnedFrom: Billing?
        var churnReason: EndReason?
        var reactivated = false
        for (index, change) in changes.enumerated() where period.from <= change.at && change.at < period.to {
            guard index > 0 else { continue }
            let previous = changes[index - 1]
            if case .none(let reason) = change.access, let billing = previous.access.billing {
                churnedFrom = billing
                churnReason = reason
            }
            // Paid again after a paid access that ended before this period: a comeback.
            if change.access.billing != nil, case .none = previous.access, previous.at < period.from,
               index >= 2, changes[index - 2].access.billing != nil {
                reactivated = true
            }
        }
        if let churnReason, let churnedFrom, !(history.access(at: period.to)?.isEntitled ?? false) {
            row.churned += 1
            row.byReason[churnReason.rawValue] += 1
            if let commitment = churnedFrom.commitment, commitment.period < commitment.total {
                row.commitmentsDefaulted += 1
            }
        }
        if reactivated { row.reactivated += 1 }

        let purchases = history.purchases
        if let firstPaid = purchases.first(where: { !$0.isTrial }), period.from <= firstPaid.at, firstPaid.at < period.to {
            row.newPaid += 1
        }
        for (index, purchase) in purchases.enumerated() where period.from <= purchase.at && purchase.at < period.to {
            if purchase.isTrial {
                row.trialsStarted += 1
                if index + 1 < purchases.count, !purchases[index + 1].isTrial { row.trialsConverted += 1 }
            }
            if purchase.commitmentPeriod == 1 { row.commitmentsStarted += 1 }
            if purchase.commitmentPeriod == Product.commitmentPeriods { row.commitmentsCompleted += 1 }
        }
    }

    // MARK: Output

    /// `report revenue --by month` rows: periods in order, currencies alphabetically, only
    /// rows with some activity.
    var revenueJSON: JSON {
        var rows: [JSON] = []
        for (index, period) in grid.periods.enumerated() {
            for currency in Currency.allCases {
                let row = revenue[index][currency.rawValue]
                guard row.hasActivity else { continue }
                rows.append(.object([
                    ("period", .string(period.label)), ("currency", .string(currency.code)),
                    ("grossSales", .integer(row.grossSales)), ("refunds", .integer(row.refunds)),
                    ("net", .integer(row.grossSales - row.refunds)), ("proceeds", .integer(row.proceeds)),
                    ("transactions", .int(row.transactions)), ("refundedTransactions", .int(row.refundedTransactions)),
                ]))
            }
        }
        return .array(rows)
    }

    /// `report mrr` at each period's end, currencies with an active subscription or trial.
    var mrrJSON: JSON {
        .array(grid.periods.enumerated().map { index, period in
            let rows = Currency.allCases.compactMap { currency -> JSON? in
                let row = mrr[index][currency.rawValue]
                guard row.activeSubscriptions + row.activeTrials > 0 else { return nil }
                return .object([
                    ("currency", .string(currency.code)),
                    ("mrr", .integer(roundHalfAwayFromZero(row.twelfths, dividedBy: 12))), ("arr", .integer(row.twelfths)),
                    ("activeSubscriptions", .int(row.activeSubscriptions)), ("activeTrials", .int(row.activeTrials)),
                    ("activeCommitments", .int(row.activeCommitments)),
                    ("committedRevenueRemaining", .integer(row.committedRevenueRemaining)),
                ])
            }
            return .object([("at", .string(UTC.iso8601(period.to))), ("rows", .array(rows))])
        })
    }

    /// `report churn --by month` rows, one per period.
    var churnJSON: JSON {
        .array(grid.periods.enumerated().map { index, period in
            let row = churn[index]
            let reasons = EndReason.allCases.map { ($0.key, JSON.int(row.byReason[$0.rawValue])) }
            return .object([
                ("period", .string(period.label)), ("activeAtStart", .int(row.activeAtStart)), ("newPaid", .int(row.newPaid)),
                ("churned", .int(row.churned)), ("churnRate", Self.ratio(row.churned, row.activeAtStart)),
                ("byReason", .object(reasons)), ("reactivated", .int(row.reactivated)),
                ("trialsStarted", .int(row.trialsStarted)), ("trialsConverted", .int(row.trialsConverted)),
                ("trialConversionRate", Self.ratio(row.trialsConverted, row.trialsStarted)),
                ("commitmentsStarted", .int(row.commitmentsStarted)), ("commitmentsCompleted", .int(row.commitmentsCompleted)),
                ("commitmentsDefaulted", .int(row.commitmentsDefaulted)),
            ])
        })
    }

    private static func ratio(_ numerator: Int, _ denominator: Int) -> JSON {
        denominator == 0 ? .null : .double(Double(numerator) / Double(denominator))
    }
}

extension FinalSubscription {
    /// The contract's `customer --json` fields of this subscription at the end of the simulation.
    var json: JSON {
        let expirationReason: String?
        switch phase {
        case .expired:
            switch renewalInfo.expirationIntent {
            case .customerCancelled: expirationReason = "voluntary"
            case .billingError: expirationReason = "billing_error"
            case .customerDidNotConsentToPriceIncrease: expirationReason = "price_increase"
            case .productNotAvailable: expirationReason = "product_not_for_sale"
            default: expirationReason = "other"
            }
        case .billingRetry:
            expirationReason = "billing_error"
        case .active, .grace, .revoked:
            expirationReason = nil
        }
        let commitment: JSON
        if let info = transaction.commitmentInfo {
            commitment = .object([
                ("billingPeriodNumber", .int(info.billingPeriodNumber ?? 0)), ("totalBillingPeriods", .int(info.totalBillingPeriods ?? 0)),
                ("expiresAt", .optional(info.commitmentExpiresDate.map(UTC.iso8601))), ("price", .integer(info.commitmentPrice ?? 0)),
            ])
        } else {
            commitment = .null
        }
        return .object([
            ("status", .string(phase.contractName)),
            ("entitled", .bool(phase == .active || phase == .grace)),
            ("expiresAt", .optional(transaction.expiresDate.map(UTC.iso8601))),
            ("autoRenew", .bool(renewalInfo.autoRenewStatus == .on)),
            ("productId", .optional(transaction.productId)),
            ("expirationReason", .optional(expirationReason)),
            ("priceIncrease", .optional(priceIncrease?.rawValue.lowercased())),
            ("billingPlan", .string(transaction.billingPlanType == .monthly ? "monthly_commitment" : "upfront")),
            ("commitment", commitment),
            ("ownership", .string(transaction.inAppOwnershipType == .familyShared ? "family_shared" : "purchased")),
        ])
    }
}
