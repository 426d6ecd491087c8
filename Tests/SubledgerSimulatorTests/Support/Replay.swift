import Foundation
import SubledgerAppStore
import SubledgerSimulator

/// The tests' own reading of a workload, independent of the simulator's model: each
/// subscription's notifications in `signedDate` order. In a simulated workload every change of
/// access arrives as a notification at the instant it happens, so a subscription's state at `T`
/// is what its last notification at or before `T` says.
struct Replay {
    struct Step {
        let at: Int64
        let typeKey: String
        let status: Int
        let transaction: TransactionPayload
        let renewal: RenewalInfoPayload?

        var entitled: Bool { status == 1 || status == 4 }
        var inTrial: Bool { entitled && transaction.offerDiscountType == .freeTrial }
        var paid: Bool { entitled && !inTrial }

        /// Why access ended, when this step ended it.
        var endReason: String? {
            switch typeKey {
            case "EXPIRED/VOLUNTARY": "voluntary"
            case "EXPIRED/BILLING_RETRY", "GRACE_PERIOD_EXPIRED": "billing_error"
            case "EXPIRED/PRICE_INCREASE": "price_increase"
            case "EXPIRED/PRODUCT_NOT_FOR_SALE": "product_not_for_sale"
            case "REFUND": "refund"
            default: nil
            }
        }
    }

    /// Auto-renewable subscriptions by original transaction id, purchased ones only.
    let purchased: [String: [Step]]
    /// Family-shared ones.
    let familyShared: [String: [Step]]
    /// Every distinct transaction id's notifications, in order (for revenue).
    let transactions: [String: [Delivered]]

    init(_ notifications: [Delivered]) {
        var purchased: [String: [Step]] = [:], familyShared: [String: [Step]] = [:]
        var transactions: [String: [Delivered]] = [:]
        for delivered in notifications.sorted(by: { $0.signedDate < $1.signedDate }) {
            guard let transaction = delivered.transaction else { continue }
            transactions[transaction.transactionId!, default: []].append(delivered)
            guard transaction.type == .autoRenewableSubscription else { continue }
            let step = Step(at: delivered.signedDate, typeKey: delivered.typeKey, status: delivered.notification.data!.status!.rawValue,
                            transaction: transaction, renewal: delivered.renewal)
            if transaction.inAppOwnershipType == .familyShared {
                familyShared[transaction.originalTransactionId!, default: []].append(step)
            } else {
                purchased[transaction.originalTransactionId!, default: []].append(step)
            }
        }
        self.purchased = purchased
        self.familyShared = familyShared
        self.transactions = transactions
    }

    static func state(of steps: [Step], at instant: Int64) -> Step? {
        steps.last { $0.at <= instant }
    }

    /// The contract's MRR weight of a transaction, in twelfths of its price: ×1 for a monthly
    /// commitment plan, else by its length rounded to the nearest of P1W…P1Y.
    static func twelfths(_ transaction: TransactionPayload) -> Int64 {
        if transaction.billingPlanType == .monthly { return 12 }
        let days = Double(transaction.expiresDate! - transaction.purchaseDate!) / 86_400_000
        let periods: [(Double, Int64)] = [(7, 52), (30, 12), (60, 6), (91, 4), (182, 2), (365, 1)]
        return periods.min { abs($0.0 - days) < abs($1.0 - days) }!.1
    }
}

/// `x / divisor` rounded half away from zero, written for the tests.
func roundedDivision(_ x: Int64, _ divisor: Int64) -> Int64 {
    let quotient = (Double(x) / Double(divisor))
    return Int64(quotient.rounded(.toNearestOrAwayFromZero))
}

extension TestCalendar {
    static func parse(_ iso: String) -> Int64 {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return Int64((formatter.date(from: iso)!.timeIntervalSince1970 * 1000).rounded())
    }

    /// The report periods of a simulation: calendar months from `start`, `months` of them.
    static func periods(start: String, months: Int) -> [(label: String, from: Int64, to: Int64)] {
        (0..<months).map { index in
            let from = millis(day: start, plusMonths: index)
            return (month(from), from, millis(day: start, plusMonths: index + 1))
        }
    }
}

/// Thirteen months of 200 customers, shared by the suites that read a medium run: long enough
/// for completed commitments and the 85% proceeds rate, and (probed over 20 seeds) for every
/// lifecycle to occur.
enum SharedWorkloads {
    static let mediumConfiguration = Simulator.Configuration(customers: 200, months: 13, seed: 2026)
    static let medium: Result<Workload, any Error> = Result { try Workload.run(mediumConfiguration) }
    static let mediumNotifications: Result<[Delivered], any Error> = Result { try medium.get().notifications() }
    static let mediumReplay: Result<Replay, any Error> = Result { Replay(try mediumNotifications.get()) }
}
