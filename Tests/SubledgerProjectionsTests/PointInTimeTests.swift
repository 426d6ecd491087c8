import SubledgerEvents
import SubledgerLog
import SubledgerProjections
import SubledgerTestSupport
import Testing

/// Everything a ledger answers, for comparing two ledgers.
struct Answers: Equatable {
    var customers: [CustomerState?] = []
    var revenue: [RevenueReport] = []
    var mrr: [MRRReport] = []
    var churn: ChurnReport?
    var cohorts: CohortReport?

    static let instants = ["2026-01-15", "2026-02-01", "2026-03-01", "2026-03-10", "2026-03-26", "2026-04-05", "2026-06-01"]
        .map { at($0) }

    init(_ projection: Projection, ids: [String], atPosition: LogPosition? = nil) {
        let scope = ReportScope(environment: .production, atPosition: atPosition)
        for id in ids {
            for instant in Self.instants {
                customers.append(projection.customer(id, asOf: instant, atPosition: atPosition))
            }
        }
        let from = UTCDay("2025-12-01")!
        let to = UTCDay("2026-05-31")!
        for convention in RefundConvention.allCases {
            revenue.append(projection.revenue(from: from, to: to, byProduct: true, refunds: convention, scope: scope))
        }
        mrr = Self.instants.map { projection.mrr(at: $0, scope: scope) }
        churn = projection.churn(from: from, to: to, scope: scope)
        cohorts = projection.cohorts(from: UTCMonth("2025-12")!, to: UTCMonth("2026-05")!, now: at("2026-06-01"), scope: scope)
    }
}

/// The March scenario plus refunds, reversals, upgrades and backfilled transactions.
func mixedEvents() -> (events: [Event], ids: [String]) {
    var events = MarchScenario().events
    var apple = Notifier()
    let sub = Subscriber("mixed", token: "0B6A1C3E-2222-4F00-9ABC-0123456789AB")
    let first = sub.transaction("m1", purchased: at("2026-01-03"), expires: at("2026-02-03"))
    let second = sub.transaction("m2", purchased: at("2026-02-03"), expires: at("2026-03-03"), price: 12990, product: "pro.plus")
    var refunded = second
    refunded.revocationDate = at("2026-02-14")
    refunded.revocationType = "REFUND_PRORATED"
    refunded.revocationPercentage = 33333
    refunded.signedDate = at("2026-02-14")
    var restored = second
    restored.signedDate = at("2026-02-28")
    events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-03"), transaction: first,
                                     renewal: sub.renewal(signed: at("2026-01-03"))))
    events.append(apple.notification("PRICE_INCREASE", "PENDING", signed: at("2026-01-20"), transaction: first,
                                     renewal: sub.renewal(signed: at("2026-01-20"), priceIncreaseStatus: 0)))
    events.append(apple.notification("DID_RENEW", signed: at("2026-02-03"), transaction: second,
                                     renewal: sub.renewal(signed: at("2026-02-03"), priceIncreaseStatus: 1)))
    events.append(apple.notification("REFUND", signed: at("2026-02-14"), transaction: refunded))
    events.append(apple.notification("REFUND_REVERSED", signed: at("2026-02-28"), transaction: restored))
    // The same renewal fed again from transaction history, and a later backfill.
    let backfilled = sub.transaction("m3", purchased: at("2026-03-03"), expires: at("2026-04-03"), price: 12990,
                                     product: "pro.plus", signed: at("2026-03-05"))
    events.append(apple.backfill(backfilled))
    events.append(apple.backfill(backfilled))
    var test = apple.notification("TEST", signed: at("2026-03-01"))
    test.environment = .production
    events.append(test)
    return (events, MarchScenario.ids + ["mixed", "m2", "0b6a1c3e-2222-4f00-9abc-0123456789ab"])
}

@Suite("Order independence and points in time")
struct PointInTimeTests {
    @Test("the same events in random orders, with duplicates, give identical state and reports")
    func orderIndependence() throws {
        let (events, ids) = mixedEvents()
        let baseline = Answers(TestLedger(events).projection, ids: ids)
        #expect(baseline.customers.contains { $0?.subscriptions.first?.status == .revoked })
        var rng = SeededGenerator(state: 42)
        for round in 0..<20 {
            var shuffled = events.shuffled(using: &rng)
            for _ in 0..<(events.count / 3) {
                let duplicate = events.randomElement(using: &rng)!
                shuffled.insert(duplicate, at: Int.random(in: 0...shuffled.count, using: &rng))
            }
            let ledger = TestLedger(shuffled)
            #expect(Answers(ledger.projection, ids: ids) == baseline, "round \(round)")
            #expect(ledger.projection.notificationCount == TestLedger(events).projection.notificationCount)
        }
    }

    @Test("contradictory messages signed in the same millisecond resolve by what they say, whatever order they arrive in", arguments: [
        "renewal preference", "expiry subtype", "price increase", "refund type", "bare refunds",
    ])
    func sameMillisecondTies(_ kind: String) throws {
        var apple = Notifier()
        let sub = Subscriber("tie")
        let bought = sub.transaction("t1", purchased: at("2025-03-01"), expires: at("2025-04-01"))
        let start = apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2025-03-01"), transaction: bought, renewal: sub.renewal(signed: at("2025-03-01")))
        let tied = at("2025-03-06", 10) + 123
        let pair: [Event] = switch kind {
        case "renewal preference":
            ["basic.monthly", "pro.yearly"].map {
                apple.notification("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", signed: tied, transaction: bought, renewal: sub.renewal(signed: tied, autoRenewProduct: $0))
            }
        case "expiry subtype":
            ["VOLUNTARY", "BILLING_RETRY"].map {
                apple.notification("EXPIRED", $0, signed: at("2025-04-01"), transaction: bought, renewal: sub.renewal(signed: at("2025-04-01"), autoRenew: false))
            }
        case "price increase":
            [(nil, 0), ("ACCEPTED", 1)].map { subtype, status in
                apple.notification("PRICE_INCREASE", subtype ?? "PENDING", signed: tied, transaction: bought, renewal: sub.renewal(signed: tied, priceIncreaseStatus: status))
            }
        case "refund type":
            [nil, 50_000].map { apple.notification("REFUND", signed: tied, transaction: bought.refunded(at: tied, percentage: $0)) }
        default:
            [nil, 50_000].map { apple.backfill(bought.refunded(at: tied, percentage: $0)) }
        }
        let forwards = TestLedger([start] + pair), backwards = TestLedger([start, pair[1], pair[0]])
        for instant in [tied + 1, at("2025-03-20"), at("2025-04-20")] {
            #expect(forwards.customer("tie", at: instant) == backwards.customer("tie", at: instant), "\(kind) at \(instant)")
        }
        // History lists them in the order they are resolved in, the same either way.
        let told = { (ledger: TestLedger) in ledger.projection.history("tie")?.events.map { "\($0.type.name) \($0.subtype ?? "")" } }
        #expect(told(forwards) == told(backwards), "\(kind)")
        let scope = ReportScope(environment: .production)
        let (march, april) = (UTCDay("2025-03-01")!, UTCDay("2025-04-30")!)
        #expect(forwards.projection.churn(from: march, to: april, scope: scope) == backwards.projection.churn(from: march, to: april, scope: scope))
        #expect(forwards.projection.revenue(from: march, to: april, scope: scope) == backwards.projection.revenue(from: march, to: april, scope: scope))
    }

    @Test("a report at a position equals the report of a ledger that stopped just before it")
    func atPosition() throws {
        let (events, ids) = mixedEvents()
        let full = TestLedger(events)
        for cut in [0, 5, 17, 30, events.count - 3, events.count] {
            let prefix = TestLedger(Array(events[..<cut]))
            let position = cut < full.positions.count ? full.positions[cut] : LogPosition(rawValue: .max)
            #expect(Answers(full.projection, ids: ids, atPosition: position) == Answers(prefix.projection, ids: ids),
                    "cut at \(cut)")
        }
    }

    @Test("as of an instant, facts signed later are unknown even when they arrived earlier")
    func asOfUsesSignedTimes() throws {
        var apple = Notifier()
        let sub = Subscriber("late")
        let first = sub.transaction("l1", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let graceNotice = apple.notification(
            "DID_FAIL_TO_RENEW", "GRACE_PERIOD", signed: at("2026-02-03"), transaction: first,
            renewal: sub.renewal(signed: at("2026-02-03"), expirationIntent: 2, billingRetry: true, graceEnds: at("2026-02-17")))
        let ledger = TestLedger([
            graceNotice,
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
        ])
        // On Feb 2 the grace period was not yet signed: past its expiry, the period had ended.
        #expect(ledger.subscription("late", at: at("2026-02-02"))?.status == .expired)
        #expect(ledger.subscription("late", at: at("2026-02-04"))?.status == .gracePeriod)
        // Before anything about the customer was signed, the customer is not known.
        #expect(ledger.customer("late", at: at("2025-12-31")) == nil)
        // Reports look back with everything the ledger knows: Feb 2 was in the grace period.
        let mrr = ledger.projection.mrr(at: at("2026-02-02"), scope: ReportScope(environment: .production))
        #expect(mrr.rows.map(\.activeSubscriptions) == [1])
    }

    @Test("a transaction fetched from transaction history answers as of its purchase, though Apple signed it when asked")
    func backfillAnswersFromPurchase() throws {
        let apple = Notifier()
        let sub = Subscriber("b1")
        // Fetched on 1 July: one renewal that was refunded on 20 March, one still running.
        var refunded = sub.transaction("b1", purchased: at("2026-03-01"), expires: at("2026-04-01"), signed: at("2026-07-01"))
        refunded.revocationDate = at("2026-03-20")
        refunded.revocationType = "REFUND_FULL"
        let current = sub.transaction("b2", purchased: at("2026-06-15"), expires: at("2026-07-15"), signed: at("2026-07-01"))
        let ledger = TestLedger([apple.backfill(refunded), apple.backfill(current)])
        #expect(ledger.customer("b1", at: at("2026-02-28")) == nil, "before the purchase nothing is known")
        #expect(ledger.subscription("b1", at: at("2026-03-10"))?.status == .active)
        #expect(ledger.subscription("b1", at: at("2026-03-25"))?.status == .revoked, "the refund counts from its own date")
        #expect(ledger.subscription("b1", at: at("2026-06-20"))?.status == .active)
        // The same as the reports, which look back with everything the ledger knows.
        let mrr = ledger.projection.mrr(at: at("2026-03-10"), scope: ReportScope(environment: .production))
        #expect(mrr.rows.map(\.activeSubscriptions) == [1])
    }

    @Test("a transaction a notification brought, fetched again later, does not carry what happened since back to its purchase")
    func backfillOfKnownTransactionKeepsItsSigning() throws {
        var apple = Notifier()
        let sub = Subscriber("e1")
        let bought = sub.transaction("e1", purchased: at("2026-06-17"), expires: at("2027-06-17"), signed: at("2026-06-17"))
        // On 11 November a renewal extension moved the expiry a week; the same content fetched again.
        var extended = bought
        extended.expiresDate = at("2027-06-24")
        extended.signedDate = at("2026-11-11")
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-06-17"), transaction: bought),
            apple.notification("RENEWAL_EXTENDED", signed: at("2026-11-11"), transaction: extended),
            apple.backfill(extended),
        ])
        #expect(ledger.subscription("e1", at: at("2026-07-03"))?.expiresAt == at("2027-06-17"))
        #expect(ledger.subscription("e1", at: at("2026-11-12"))?.expiresAt == at("2027-06-24"))
    }

    @Test("a renewal info fetched with it answers from the purchase of the transaction it follows, unless something signed since is known")
    func backfilledRenewalAnswersFromPurchase() throws {
        var apple = Notifier()
        let sub = Subscriber("r1")
        let renewed = sub.transaction("r2", purchased: at("2026-03-01"), expires: at("2026-04-01"), signed: at("2026-07-01"))
        let first = sub.transaction("r1", purchased: at("2026-02-01"), expires: at("2026-03-01"), signed: at("2026-07-01"))
        // Fetched on 1 July: auto-renew off, lapsed by the customer's choice.
        let status = apple.backfill(sub.renewal(signed: at("2026-07-01"), autoRenew: false, expirationIntent: 1))
        let ledger = TestLedger([apple.backfill(first), apple.backfill(renewed), status])
        let lapsed = try #require(ledger.subscription("r1", at: at("2026-04-10")))
        #expect(lapsed.status == .expired)
        #expect(lapsed.expirationReason == .voluntary)
        #expect(lapsed.autoRenew == false)
        // Before the last purchase the info does not yet apply.
        #expect(ledger.subscription("r1", at: at("2026-02-10"))?.autoRenew == nil)

        // A notification signed between the purchase and the fetch is newer than the purchase:
        // the fetched info applies from its own signing then.
        let switchedOn = apple.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", signed: at("2026-03-15"), transaction: renewed,
                                            renewal: sub.renewal(signed: at("2026-03-15"), autoRenew: true))
        let known = TestLedger([apple.backfill(first), apple.backfill(renewed), status, switchedOn])
        #expect(known.subscription("r1", at: at("2026-04-10"))?.autoRenew == true)
        #expect(known.subscription("r1", at: at("2026-07-02"))?.autoRenew == false)
    }

    @Test("a customer at a position is found, named and grouped by what was recorded before it, as a ledger that stopped there would")
    func customerAtPositionKnowsOnlyEarlierIds() throws {
        var apple = Notifier()
        let shared = "7e57c0de-0000-4000-8000-000000000001"
        var sandbox = Subscriber("5000", token: shared)
        sandbox.environment = .sandbox
        let production = Subscriber("6000", token: shared)
        var plain = Subscriber("7000")
        let first = plain.transaction("7000", purchased: at("2026-01-10"), expires: at("2026-02-10"))
        plain.token = "aaaa0000-0000-4000-8000-000000000002"
        var late = Subscriber("777", token: "bbbbbbbb-0000-4000-8000-000000000000")
        let renewal = late.transaction("778", purchased: at("2026-02-01"), expires: at("2026-03-01"))
        late.token = "aaaaaaaa-0000-4000-8000-000000000000"
        let events = [
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"),
                               transaction: sandbox.transaction("5000", purchased: at("2026-01-01"), expires: at("2026-02-01")), environment: .sandbox),
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-05"),
                               transaction: production.transaction("6000", purchased: at("2026-01-05"), expires: at("2026-02-05"))),
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-10"), transaction: first),
            // The token reaches 7000 with its renewal; 777's earlier-purchased token arrives after its renewal's.
            apple.notification("DID_RENEW", signed: at("2026-02-10"),
                               transaction: plain.transaction("7001", purchased: at("2026-02-10"), expires: at("2026-03-10"))),
            apple.notification("DID_RENEW", signed: at("2026-02-01"), transaction: renewal),
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"),
                               transaction: late.transaction("777", purchased: at("2026-01-01"), expires: at("2026-02-01"))),
        ]
        // Not looked up by 777's first token: replaced since, it is no longer indexed (docs/audit.md).
        let ids = [shared, "5000", "6000", "7000", "7001", "aaaa0000-0000-4000-8000-000000000002", "777", "778",
                   "aaaaaaaa-0000-4000-8000-000000000000"]
        let full = TestLedger(events)
        var differences: [String] = []
        for cut in 0...events.count {
            let prefix = TestLedger(Array(events[..<cut]))
            let position = cut < full.positions.count ? full.positions[cut] : LogPosition(rawValue: .max)
            for id in ids {
                for instant in [at("2026-01-20"), at("2026-02-20")] {
                    let asked = full.customer(id, at: instant, atPosition: position)
                    let then = prefix.customer(id, at: instant)
                    if asked != then {
                        differences.append("cut \(cut), \(id): \(asked.map { "\($0.customerId) \($0.environment ?? "-")" } ?? "none") vs \(then.map { "\($0.customerId) \($0.environment ?? "-")" } ?? "none")")
                    }
                }
            }
        }
        #expect(differences.isEmpty, "\(differences)")
        #expect(full.customer("7001", at: at("2026-02-20"), atPosition: full.positions[3]) == nil, "a transaction recorded later names no one")
        #expect(full.customer(shared, at: at("2026-01-20"), atPosition: full.positions[1])?.environment == "Sandbox")
    }

    @Test("a customer is found by any case of the token, by originalTransactionId and by transactionId")
    func lookUps() throws {
        var apple = Notifier()
        let token = "0B6A1C3E-2222-4F00-9ABC-0123456789AB"
        let sub = Subscriber("4242", token: token)
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"),
                               transaction: sub.transaction("4242", purchased: at("2026-01-01"), expires: at("2026-02-01")),
                               uuid: "7e3c1d2a-0000-4000-8000-000000000001"),
            apple.notification("DID_RENEW", signed: at("2026-02-01"),
                               transaction: sub.transaction("4243", purchased: at("2026-02-01"), expires: at("2026-03-01"))),
        ])
        for id in [token, token.lowercased(), "4242", "4243"] {
            let customer = try #require(ledger.customer(id, at: at("2026-02-10")), "look-up by \(id)")
            #expect(customer.customerId == token.lowercased())
            #expect(customer.subscriptions.map(\.originalTransactionId) == ["4242"])
        }
        #expect(ledger.customer("9999", at: at("2026-02-10")) == nil)
        #expect(ledger.projection.containsNotification("7E3C1D2A-0000-4000-8000-000000000001"))
        #expect(!ledger.projection.containsNotification("7e3c1d2a-0000-4000-8000-0000000000ff"))
    }

    @Test("the customer id is the token of the earliest transaction carrying one, whatever arrives first")
    func earliestTokenWins() throws {
        var apple = Notifier()
        var late = Subscriber("777", token: "bbbbbbbb-0000-4000-8000-000000000000")
        let renewal = late.transaction("778", purchased: at("2026-02-01"), expires: at("2026-03-01"))
        late.token = "aaaaaaaa-0000-4000-8000-000000000000"
        let initial = late.transaction("777", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let ledger = TestLedger([
            apple.notification("DID_RENEW", signed: at("2026-02-01"), transaction: renewal),
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: initial),
        ])
        #expect(ledger.customer("777", at: at("2026-02-10"))?.customerId == "aaaaaaaa-0000-4000-8000-000000000000")
        #expect(ledger.customer("bbbbbbbb-0000-4000-8000-000000000000", at: at("2026-02-10")) == nil)
        // Without any token the customer id is the originalTransactionId.
        let plain = TestLedger([apple.notification(
            "SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"),
            transaction: Subscriber("555").transaction("555", purchased: at("2026-01-01"), expires: at("2026-02-01")))])
        #expect(plain.customer("555", at: at("2026-01-10"))?.customerId == "555")
    }
}
