import Foundation
import Testing
import SubledgerAppStore
import SubledgerSimulator

/// expected.json comes from the simulator's model; these tests derive the same numbers from
/// the signed notifications alone and demand agreement.
@Suite("Ground truth")
struct GroundTruthTests {
    let workload: Workload
    let replay: Replay
    let periods: [(label: String, from: Int64, to: Int64)]

    init() throws {
        workload = try SharedWorkloads.medium.get()
        replay = try SharedWorkloads.mediumReplay.get()
        periods = TestCalendar.periods(start: SharedWorkloads.mediumConfiguration.start, months: SharedWorkloads.mediumConfiguration.months)
    }

    private func period(of instant: Int64) -> String {
        periods.first { $0.from <= instant && instant < $0.to }!.label
    }

    @Test("revenue rows equal the paid purchased transactions and refunds in the notifications")
    func revenue() throws {
        struct Row: Equatable {
            var grossSales: Int64 = 0, refunds: Int64 = 0, proceeds: Int64 = 0
            var transactions = 0, refundedTransactions = 0
        }
        var rows: [String: Row] = [:]
        // Per transaction and period, for rounding proceeds per transaction.
        var amounts: [String: (currency: String, rate: Int64, sales: Int64, refunds: Int64)] = [:]
        let rates = proceedsRates()
        var saw85 = false
        for (transactionId, notifications) in replay.transactions {
            let first = notifications[0].transaction!
            guard first.inAppOwnershipType == .purchased, first.price! > 0 else { continue }
            let currency = first.currency!
            let rate = rates[transactionId] ?? 70
            saw85 = saw85 || rate == 85
            let sold = period(of: first.purchaseDate!)
            rows["\(sold) \(currency)", default: Row()].grossSales += first.price!
            rows["\(sold) \(currency)", default: Row()].transactions += 1
            amounts["\(transactionId) \(sold)", default: (currency, rate, 0, 0)].sales += first.price!
            var lastRefund: Int64 = 0
            for delivered in notifications {
                let transaction = delivered.transaction!
                let booked: String, amount: Int64, count: Int
                switch delivered.notification.notificationType {
                case .refund?:
                    lastRefund = transaction.revocationType == .refundProrated
                        ? roundedDivision(transaction.price! * transaction.revocationPercentage!, 100_000) : transaction.price!
                    (booked, amount, count) = (period(of: transaction.revocationDate!), lastRefund, 1)
                case .refundReversed?:
                    (booked, amount, count) = (period(of: delivered.signedDate), -lastRefund, -1)
                default:
                    continue
                }
                rows["\(booked) \(currency)", default: Row()].refunds += amount
                rows["\(booked) \(currency)", default: Row()].refundedTransactions += count
                amounts["\(transactionId) \(booked)", default: (currency, rate, 0, 0)].refunds += amount
            }
        }
        for (key, amount) in amounts {
            let booked = String(key.split(separator: " ")[1])
            rows["\(booked) \(amount.currency)", default: Row()].proceeds += roundedDivision((amount.sales - amount.refunds) * amount.rate, 100)
        }
        #expect(saw85, "a run over a year should reach the 85% rate")

        var expected: [String: Row] = [:]
        for row in workload.revenueRows {
            let gross = row["grossSales"] as! Int64, refunds = row["refunds"] as! Int64
            #expect(row["net"] as! Int64 == gross - refunds)
            expected["\(row["period"] as! String) \(row["currency"] as! String)"] = Row(
                grossSales: gross, refunds: refunds, proceeds: row["proceeds"] as! Int64,
                transactions: row["transactions"] as! Int, refundedTransactions: row["refundedTransactions"] as! Int)
        }
        #expect(Set(expected.keys) == Set(rows.keys))
        for (key, row) in rows {
            #expect(expected[key] == row, "revenue \(key)")
        }
    }

    /// The proceeds rate of each paid purchased subscription transaction: 85% once a year of
    /// paid service (purchase to original expiry, or earlier upgrade or standing refund, and the
    /// billing grace days before a recovery in grace) has accumulated with no gap over 60 days.
    private func proceedsRates() -> [String: Int64] {
        let day: Int64 = 86_400_000
        var rates: [String: Int64] = [:]
        for steps in replay.purchased.values {
            var seen = Set<String>()
            // The grace period each transaction's failed renewal opened, by transaction id.
            var graceEnds: [String: Int64] = [:]
            for step in steps where step.typeKey == "DID_FAIL_TO_RENEW/GRACE_PERIOD" {
                graceEnds[step.transaction.transactionId!] = step.renewal?.gracePeriodExpiresDate
            }
            var purchases: [(id: String, transaction: TransactionPayload, originalExpires: Int64)] = []
            for step in steps where seen.insert(step.transaction.transactionId!).inserted {
                purchases.append((step.transaction.transactionId!, step.transaction, step.transaction.expiresDate!))
            }
            purchases.sort { $0.transaction.purchaseDate! < $1.transaction.purchaseDate! }
            var accumulated: Int64 = 0
            var lastEnd: Int64?
            for (index, purchase) in purchases.enumerated() where purchase.transaction.price! > 0 {
                let start = purchase.transaction.purchaseDate!
                if let lastEnd, start - lastEnd > 60 * day { accumulated = 0 }
                rates[purchase.id] = accumulated >= 365 * day ? 85 : 70
                let finalState = replay.transactions[purchase.id]!.last!.transaction!
                var end = purchase.originalExpires
                if index + 1 < purchases.count { end = min(end, purchases[index + 1].transaction.purchaseDate!) }
                if let revoked = finalState.revocationDate { end = min(end, revoked) }
                accumulated += end - start
                if index + 1 < purchases.count, let graceEnd = graceEnds[purchase.id], let expiry = finalState.expiresDate {
                    let next = purchases[index + 1].transaction.purchaseDate!
                    if next > expiry && next <= graceEnd { accumulated += min(next, finalState.revocationDate ?? .max) - expiry }
                }
                lastEnd = end
            }
        }
        return rates
    }

    @Test("every subscription's final state matches its last notification")
    func finalStates() throws {
        let customers = workload.customers
        var checked = 0
        for (originalTransactionId, steps) in replay.purchased.merging(replay.familyShared, uniquingKeysWith: { $0 + $1 }) {
            let last = steps.last!
            let byPurchase = steps.sorted { $0.transaction.purchaseDate! < $1.transaction.purchaseDate! }
            let customerId = byPurchase.lazy.compactMap(\.transaction.appAccountToken).first?.lowercased() ?? originalTransactionId
            let state = try #require(customers[customerId]?[originalTransactionId], "no expected state for \(customerId) / \(originalTransactionId)")
            let status = ["", "active", "expired", "billing_retry", "grace_period", "revoked"][last.status]
            #expect(state["status"] as? String == status)
            #expect(state["entitled"] as? Bool == last.entitled)
            #expect(state["productId"] as? String == last.transaction.productId)
            #expect(state["expiresAt"] as? String == TestCalendar.iso(last.transaction.expiresDate!))
            #expect(state["autoRenew"] as? Bool == (last.renewal?.autoRenewStatus == .on))
            #expect(state["ownership"] as? String == (last.transaction.inAppOwnershipType == .familyShared ? "family_shared" : "purchased"))
            #expect(state["billingPlan"] as? String == (last.transaction.billingPlanType == .monthly ? "monthly_commitment" : "upfront"))
            let priceIncrease = steps.last { $0.typeKey.hasPrefix("PRICE_INCREASE/") }.map { $0.typeKey.dropFirst("PRICE_INCREASE/".count).lowercased() }
            #expect(state["priceIncrease"] as? String == priceIncrease)
            let reason: String? = switch last.status {
            case 2: [1: "voluntary", 2: "billing_error", 3: "price_increase", 4: "product_not_for_sale"][last.renewal?.expirationIntent?.rawValue ?? 5] ?? "other"
            case 3: "billing_error"
            default: nil
            }
            #expect(state["expirationReason"] as? String == reason)
            if let commitment = last.transaction.commitmentInfo {
                let expected = try #require(state["commitment"] as? [String: Any])
                #expect(expected["billingPeriodNumber"] as? Int == commitment.billingPeriodNumber)
                #expect(expected["totalBillingPeriods"] as? Int == commitment.totalBillingPeriods)
                #expect(expected["price"] as? Int64 == commitment.commitmentPrice)
                #expect(expected["expiresAt"] as? String == TestCalendar.iso(commitment.commitmentExpiresDate!))
            } else {
                #expect(state["commitment"] is NSNull)
            }
            checked += 1
        }
        #expect(checked == customers.values.reduce(0) { $0 + $1.count })
        #expect(checked == workload.summary.subscriptions)
    }

    @Test("MRR at each month end equals the entitled purchased subscriptions' current prices")
    func mrr() throws {
        let snapshots = workload.mrrSnapshots
        #expect(snapshots.map { TestCalendar.parse($0["at"] as! String) } == periods.map(\.to))
        for snapshot in snapshots {
            let at = TestCalendar.parse(snapshot["at"] as! String)
            var rows: [String: [Int64]] = [:]  // twelfths, active, trials, commitments, remaining
            for steps in replay.purchased.values {
                guard let state = Replay.state(of: steps, at: at), state.entitled else { continue }
                let transaction = state.transaction
                var row = rows[transaction.currency!] ?? [0, 0, 0, 0, 0]
                if state.inTrial {
                    row[2] += 1
                } else {
                    row[0] += transaction.price! * Replay.twelfths(transaction)
                    row[1] += 1
                    if transaction.billingPlanType == .monthly, let commitment = transaction.commitmentInfo {
                        row[3] += 1
                        row[4] += Int64(commitment.totalBillingPeriods! - commitment.billingPeriodNumber!) * transaction.price!
                    }
                }
                rows[transaction.currency!] = row
            }
            let expected = snapshot["rows"] as! [[String: Any]]
            #expect(expected.map { $0["currency"] as! String } == rows.keys.sorted())
            for row in expected {
                let replayed = try #require(rows[row["currency"] as! String])
                #expect(row["mrr"] as! Int64 == roundedDivision(replayed[0], 12))
                #expect(row["arr"] as! Int64 == replayed[0])
                #expect(row["activeSubscriptions"] as! Int64 == replayed[1])
                #expect(row["activeTrials"] as! Int64 == replayed[2])
                #expect(row["activeCommitments"] as! Int64 == replayed[3])
                #expect(row["committedRevenueRemaining"] as! Int64 == replayed[4])
            }
        }
    }

    @Test("churn rows equal a replay of the notifications month by month")
    func churn() throws {
        let rows = workload.churnRows
        #expect(rows.map { $0["period"] as! String } == periods.map(\.label))
        for (row, period) in zip(rows, periods) {
            var counts: [String: Int] = [:]
            var reasons: [String: Int] = [:]
            for steps in replay.purchased.values {
                if Replay.state(of: steps, at: period.from)?.paid == true { counts["activeAtStart", default: 0] += 1 }
                var churnReason: String?, churnedCommitment: TransactionCommitmentInfo?
                var reactivated = false
                for index in steps.indices.dropFirst() where period.from <= steps[index].at && steps[index].at < period.to {
                    let step = steps[index], previous = steps[index - 1]
                    if !step.entitled, previous.paid {
                        churnReason = step.endReason
                        churnedCommitment = previous.transaction.billingPlanType == .monthly ? previous.transaction.commitmentInfo : nil
                    }
                    if step.paid, !previous.entitled {
                        var runStart = index - 1
                        while runStart > 0, !steps[runStart - 1].entitled { runStart -= 1 }
                        if steps[runStart].at < period.from, runStart > 0, steps[runStart - 1].paid { reactivated = true }
                    }
                }
                if let churnReason, Replay.state(of: steps, at: period.to)?.entitled != true {
                    counts["churned", default: 0] += 1
                    reasons[churnReason, default: 0] += 1
                    if let commitment = churnedCommitment, commitment.billingPeriodNumber! < commitment.totalBillingPeriods! {
                        counts["commitmentsDefaulted", default: 0] += 1
                    }
                }
                if reactivated { counts["reactivated", default: 0] += 1 }

                var seen = Set<String>()
                let purchases = steps.map(\.transaction).filter { seen.insert($0.transactionId!).inserted }
                    .sorted { $0.purchaseDate! < $1.purchaseDate! }
                if let firstPaid = purchases.first(where: { $0.offerDiscountType != .freeTrial }),
                   period.from <= firstPaid.purchaseDate!, firstPaid.purchaseDate! < period.to {
                    counts["newPaid", default: 0] += 1
                }
                for (index, purchase) in purchases.enumerated() where period.from <= purchase.purchaseDate! && purchase.purchaseDate! < period.to {
                    if purchase.offerDiscountType == .freeTrial {
                        counts["trialsStarted", default: 0] += 1
                        if index + 1 < purchases.count, purchases[index + 1].offerDiscountType != .freeTrial {
                            counts["trialsConverted", default: 0] += 1
                        }
                    }
                    if purchase.billingPlanType == .monthly, let commitment = purchase.commitmentInfo {
                        if commitment.billingPeriodNumber == 1 { counts["commitmentsStarted", default: 0] += 1 }
                        if commitment.billingPeriodNumber == commitment.totalBillingPeriods { counts["commitmentsCompleted", default: 0] += 1 }
                    }
                }
            }
            for key in ["activeAtStart", "newPaid", "churned", "reactivated", "trialsStarted", "trialsConverted",
                        "commitmentsStarted", "commitmentsCompleted", "commitmentsDefaulted"] {
                #expect(row[key] as? Int == counts[key, default: 0], "\(period.label) \(key)")
            }
            let byReason = row["byReason"] as! [String: Int]
            #expect(Set(byReason.keys) == ["voluntary", "billing_error", "price_increase", "product_not_for_sale", "refund", "other"])
            for (reason, count) in byReason {
                #expect(count == reasons[reason, default: 0], "\(period.label) \(reason)")
            }
            let active = counts["activeAtStart", default: 0], trials = counts["trialsStarted", default: 0]
            // Foundation's JSON reader may round a double's last digit, hence the tolerance.
            #expect(matches(row["churnRate"], active == 0 ? nil : Double(counts["churned", default: 0]) / Double(active)))
            #expect(matches(row["trialConversionRate"], trials == 0 ? nil : Double(counts["trialsConverted", default: 0]) / Double(trials)))
        }
    }

    private func matches(_ value: Any?, _ expected: Double?) -> Bool {
        guard let expected else { return value is NSNull }
        guard let value = value as? Double else { return false }
        return abs(value - expected) <= 1e-12
    }

    @Test("the generator block and notification count describe the run")
    func header() {
        let generator = workload.expected["generator"] as! [String: Any]
        #expect(generator["seed"] as? Int == 2026)
        #expect(generator["customers"] as? Int == 200)
        #expect(generator["months"] as? Int == 13)
        #expect(generator["start"] as? String == "2026-01-01")
        #expect(workload.expected["notifications"] as? Int == workload.lines.count)
        #expect(Array(workload.expected.keys).sorted() == ["churn", "customers", "generator", "mrr", "notifications", "revenue"])
    }
}
