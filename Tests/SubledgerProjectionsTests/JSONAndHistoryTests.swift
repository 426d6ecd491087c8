import Foundation
import SubledgerCore
import SubledgerEvents
import SubledgerLog
import SubledgerProjections
import Testing

/// Encodes `value` and parses it back as a JSON object.
func jsonObject(_ value: some JSONDocument) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(value.json.bytes)) as? [String: Any])
}

/// The customer document as the look-up route and `customer --json` write it, parsed back.
func jsonObject(_ customer: CustomerState) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(customer.json.bytes)) as? [String: Any])
}

@Suite("Contract JSON")
struct JSONEncodingTests {
    @Test("customer JSON has every contract field, nulls included, instants in ISO 8601 with milliseconds")
    func customerJSON() throws {
        var apple = Notifier()
        let sub = Subscriber("20000", token: "C0FFEE00-1111-4222-8333-444455556666")
        let t = sub.transaction("20000", purchased: at("2026-03-01", 10, 30), expires: at("2026-04-01", 10, 30))
        let ledger = TestLedger([apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-03-01", 10, 30), transaction: t,
                                                    renewal: sub.renewal(signed: at("2026-03-01", 10, 30)))])
        let customer = try #require(ledger.customer("20000", at: at("2026-03-05") + 7))
        let object = try jsonObject(customer)
        #expect(object["customerId"] as? String == "c0ffee00-1111-4222-8333-444455556666")
        #expect(object["asOf"] as? String == "2026-03-05T00:00:00.007Z")
        #expect(object["environment"] as? String == "Production")
        #expect(object["entitlements"] as? [String] == ["pro.monthly"])
        #expect((object["purchases"] as? [Any])?.isEmpty == true)
        let subscription = try #require((object["subscriptions"] as? [[String: Any]])?.first)
        let contractFields: Set = [
            "originalTransactionId", "productId", "subscriptionGroupId", "status", "entitled", "periodType", "expiresAt",
            "gracePeriodExpiresAt", "autoRenew", "autoRenewProductId", "expirationReason", "revocation", "revokedAt",
            "priceIncrease", "billingPlan", "commitment", "ownership", "lastTransactionId", "price", "currency", "storefront",
            "firstPurchaseAt", "paidPeriods",
        ]
        #expect(contractFields.isSubset(of: Set(subscription.keys)))
        #expect(subscription["status"] as? String == "active")
        #expect(subscription["periodType"] as? String == "normal")
        #expect(subscription["billingPlan"] as? String == "upfront")
        #expect(subscription["ownership"] as? String == "purchased")
        #expect(subscription["expiresAt"] as? String == "2026-04-01T10:30:00.000Z")
        #expect(subscription["firstPurchaseAt"] as? String == "2026-03-01T10:30:00.000Z")
        for field in ["gracePeriodExpiresAt", "expirationReason", "revocation", "revokedAt", "priceIncrease", "commitment"] {
            #expect(subscription[field] is NSNull, "\(field) should be null")
        }
        #expect(subscription["price"] as? Int == 9990)
        #expect(subscription["entitled"] as? Bool == true)
        #expect(subscription["autoRenew"] as? Bool == true)
    }

    @Test("customer JSON lists members sorted by name at every level, as its first version did, so the same state gives the same bytes")
    func customerJSONSortedMembers() throws {
        var apple = Notifier()
        let sub = Subscriber("20001", token: nil)
        let t = sub.transaction("20001", purchased: at("2026-03-01", 10, 30), expires: at("2026-04-01", 10, 30))
        let ledger = TestLedger([apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-03-01", 10, 30), transaction: t,
                                                    renewal: sub.renewal(signed: at("2026-03-01", 10, 30)))])
        let customer = try #require(ledger.customer("20001", at: at("2026-03-05")))
        let written = customer.json.bytes
        let parsed = try JSONSerialization.jsonObject(with: Data(written))
        let sorted = try JSONSerialization.data(withJSONObject: parsed, options: [.sortedKeys])
        #expect(String(decoding: written, as: UTF8.self) == String(decoding: sorted, as: UTF8.self))
    }

    @Test("enum values are the contract's snake-case strings")
    func enumStrings() {
        #expect(SubscriptionStatus.allCases.map(\.rawValue) == ["active", "grace_period", "billing_retry", "expired", "revoked"])
        #expect(ExpirationReason.allCases.map(\.rawValue) == ["voluntary", "billing_error", "price_increase", "product_not_for_sale", "other"])
        #expect(Revocation.allCases.map(\.rawValue) == ["refund", "family_revoke"])
        #expect(BillingPlan.allCases.map(\.rawValue) == ["upfront", "monthly_commitment"])
        #expect(Ownership.allCases.map(\.rawValue) == ["purchased", "family_shared"])
        #expect(RefundConvention.allCases.map(\.rawValue) == ["refund-date", "original"])
    }

    @Test("report JSON: productId only by product, snake-case reasons, null rates, ISO instants")
    func reportJSON() throws {
        let ledger = TestLedger(MarchScenario().events)
        let scope = ReportScope(environment: .production)
        let march = (UTCDay("2026-03-01")!, UTCDay("2026-03-31")!)

        let plain = try jsonObject(ledger.projection.revenue(from: march.0, to: march.1, scope: scope))
        #expect(plain["from"] as? String == "2026-03-01")
        #expect(plain["refunds"] as? String == "refund-date")
        #expect(plain["by"] as? String == "month")
        let plainRow = try #require((plain["rows"] as? [[String: Any]])?.first)
        #expect(plainRow["productId"] == nil)
        #expect(plainRow["grossSales"] is Int)
        let byProduct = try jsonObject(ledger.projection.revenue(from: march.0, to: march.1, byProduct: true, scope: scope))
        #expect((byProduct["rows"] as? [[String: Any]])?.first?["productId"] is String)

        let churn = try jsonObject(ledger.projection.churn(from: march.0, to: march.1, scope: scope))
        let row = try #require((churn["rows"] as? [[String: Any]])?.first)
        let reasons = try #require(row["byReason"] as? [String: Int])
        #expect(Set(reasons.keys) == ["voluntary", "billing_error", "price_increase", "product_not_for_sale", "refund", "other"])
        #expect(row["churnRate"] as? Double == 0.6)

        let quiet = try jsonObject(TestLedger([]).projection.churn(from: march.0, to: march.1, scope: scope))
        #expect((quiet["rows"] as? [Any])?.isEmpty == true)

        let mrr = try jsonObject(ledger.projection.mrr(at: at("2026-03-15"), scope: scope))
        #expect(mrr["at"] as? String == "2026-03-15T00:00:00.000Z")
        let mrrRow = try #require((mrr["rows"] as? [[String: Any]])?.first)
        #expect(Set(mrrRow.keys) == ["currency", "mrr", "arr", "activeSubscriptions", "activeTrials", "activeCommitments",
                                     "committedRevenueRemaining"])

        let cohorts = try jsonObject(ledger.projection.cohorts(from: UTCMonth("2026-01")!, to: UTCMonth("2026-03")!,
                                                               now: at("2026-04-15"), scope: scope))
        let cohort = try #require((cohorts["rows"] as? [[String: Any]])?.first)
        #expect(Set(cohort.keys) == ["cohort", "size", "retained"])
    }
}

@Suite("History")
struct HistoryTests {
    @Test("a customer's events come in effective-time order with their positions, whatever order they arrived in")
    func order() throws {
        var apple = Notifier()
        let sub = Subscriber("30000")
        let first = sub.transaction("30000", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let second = sub.transaction("30001", purchased: at("2026-02-01"), expires: at("2026-03-01"))
        let renew = apple.notification("DID_RENEW", signed: at("2026-02-01"), transaction: second)
        let start = apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first)
        let cancel = apple.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", signed: at("2026-02-10"),
                                        transaction: second, renewal: sub.renewal(signed: at("2026-02-10"), autoRenew: false))
        var ledger = TestLedger()
        let renewAt = ledger.post(renew)
        let startAt = ledger.post(start)
        ledger.post(renew)
        let cancelAt = ledger.post(cancel)

        let history = try #require(ledger.projection.history("30001"))
        #expect(history.customerId == "30000")
        #expect(history.events.map(\.position) == [startAt, renewAt, cancelAt])
        #expect(history.events.map(\.type) == [.subscriptionStarted, .renewed, .renewalStatusChanged])
        #expect(history.events.map(\.subtype) == ["INITIAL_BUY", nil, "AUTO_RENEW_DISABLED"])
        #expect(history.events.map(\.transactionId) == ["30000", "30001", "30001"])
        #expect(history.events.map(\.recordedAt) == [at("2026-01-01") + 1000, at("2026-02-01") + 1000, at("2026-02-10") + 1000])

        let february = try #require(ledger.projection.history("30000", from: at("2026-02-01"), to: at("2026-02-28")))
        #expect(february.events.map(\.position) == [renewAt, cancelAt])
        #expect(ledger.projection.history("nobody") == nil)
    }
}

@Suite("UTC calendar")
struct UTCCalendarTests {
    @Test("instants print as ISO 8601 UTC with milliseconds, before and after the epoch")
    func iso8601() {
        #expect(UTCInstant.iso8601(0) == "1970-01-01T00:00:00.000Z")
        #expect(UTCInstant.iso8601(at("2024-02-29", 23, 59) + 59_999) == "2024-02-29T23:59:59.999Z")
        #expect(UTCInstant.iso8601(-1) == "1969-12-31T23:59:59.999Z")
        #expect(UTCInstant.iso8601(1_772_323_200_000) == "2026-03-01T00:00:00.000Z")
    }

    @Test("days and months parse strictly and know their first instant")
    func daysAndMonths() {
        #expect(UTCDay("2026-03-01")?.start == 1_772_323_200_000)
        #expect(UTCDay("2024-02-29") != nil)
        #expect(UTCDay("2026-02-29") == nil)
        #expect(UTCDay("2026-3-01") == nil)
        #expect(UTCDay("2026-13-01") == nil)
        for signedOrForeign in ["2028-+3-01", "+028-03-01", "2028-03-+1", "2028-0٣-01", "２０２８-03-01"] {
            #expect(UTCDay(signedOrForeign) == nil, "\(signedOrForeign)")
        }
        #expect(UTCMonth("2026-03")?.start == 1_772_323_200_000)
        #expect(UTCMonth("2026-00") == nil)
        #expect(UTCMonth("2028-+2") == nil)
        #expect(UTCMonth(number: UTCMonth("2025-12")!.number + 1).description == "2026-01")
        #expect(UTCMonth(containing: at("2026-01-31", 23)).description == "2026-01")
        #expect(UTCDay(containing: -1).description == "1969-12-31")
    }

    @Test("every month starts where civil-date arithmetic says, and its first and last milliseconds belong to it, in and beyond 1970-2299")
    func monthEdges() {
        for month in (1950 * 12)..<(2320 * 12) {
            let year = month / 12
            let start = UTCInstant.dayNumber(year: year, month: month - year * 12 + 1, day: 1) * UTCCalendar.millisecondsPerDay
            #expect(UTCCalendar.start(ofMonth: month) == start)
            #expect(UTCCalendar.month(containing: start) == month)
            #expect(UTCCalendar.month(containing: start + 15 * UTCCalendar.millisecondsPerDay) == month)
            #expect(UTCCalendar.month(containing: start - 1) == month - 1)
        }
    }
}
