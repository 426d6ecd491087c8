import SubledgerEvents
@testable import SubledgerProjections
import Testing

@Suite("MRR report")
struct MRRReportTests {
    let production = ReportScope(environment: .production)
    let instant = at("2026-03-15")

    func subscribed(_ apple: inout Notifier, _ sub: Subscriber, _ id: String, from start: Int64, to end: Int64,
                    price: Int64? = nil, trial: Bool = false) -> Event {
        apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: start,
                           transaction: sub.transaction(id, purchased: start, expires: end, price: price, trial: trial),
                           renewal: sub.renewal(signed: start))
    }

    @Test("each period's price is normalised to a month, summed exactly and rounded once")
    func normalisation() throws {
        var apple = Notifier()
        var events: [Event] = []
        // Periods inferred from the transactions' own dates.
        for index in 0..<3 {
            events.append(subscribed(&apple, Subscriber("weekly\(index)"), "w\(index)", from: at("2026-03-12"),
                                     to: at("2026-03-19"), price: 1000))
        }
        events.append(subscribed(&apple, Subscriber("monthly"), "m", from: at("2026-03-01"), to: at("2026-04-01"), price: 9990))
        events.append(subscribed(&apple, Subscriber("bimonthly"), "b", from: at("2026-02-10"), to: at("2026-04-10"), price: 12000))
        events.append(subscribed(&apple, Subscriber("quarterly"), "q", from: at("2026-02-01"), to: at("2026-05-01"), price: 9000))
        events.append(subscribed(&apple, Subscriber("half"), "h", from: at("2026-01-01"), to: at("2026-07-01"), price: 30000))
        events.append(subscribed(&apple, Subscriber("yearly"), "y", from: at("2025-06-01"), to: at("2026-06-01"), price: 99990))
        let ledger = TestLedger(events)
        let report = ledger.projection.mrr(at: instant, scope: production)
        // Twelfths: 3 × 1000 × 52 + 9990 × 12 + 12000 × 6 + 9000 × 4 + 30000 × 2 + 99990 = 543870.
        // 543870 / 12 = 45322.5 → 45323 (rounding each subscription first would give 45322).
        #expect(report.rows == [MRRRow(currency: "USD", mrr: 45323, arr: 543_870, activeSubscriptions: 8, activeTrials: 0,
                                       activeCommitments: 0, committedRevenueRemaining: 0)])
        #expect(report.at == instant)
    }

    @Test("the catalog's period wins over the transaction's dates")
    func catalogPeriod() throws {
        var apple = Notifier()
        var sub = Subscriber("odd")
        sub.productId = "pro.quarterly"
        // A 40-day period would round to a month; the catalog says it is a quarter.
        let ledger = TestLedger([subscribed(&apple, sub, "o1", from: at("2026-03-01"), to: at("2026-04-10"), price: 9000)])
        let catalog = ProductCatalog(products: [.init(productId: "pro.quarterly", period: "P3M")])
        #expect(ledger.projection.mrr(at: instant, scope: production).rows.map(\.mrr) == [9000])
        #expect(ledger.projection.mrr(at: instant, scope: ReportScope(environment: .production, catalog: catalog)).rows.map(\.mrr) == [3000])
    }

    @Test("trials, family sharing, billing retry and expired subscriptions add nothing; grace counts at the last paid price, and grace after a free trial as a trial")
    func whoCounts() throws {
        var apple = Notifier()
        var events: [Event] = []
        events.append(subscribed(&apple, Subscriber("trial"), "t", from: at("2026-03-10"), to: at("2026-03-17"), trial: true))
        var family = Subscriber("family")
        family.ownership = "FAMILY_SHARED"
        events.append(subscribed(&apple, family, "f", from: at("2026-03-01"), to: at("2026-04-01")))
        events.append(subscribed(&apple, Subscriber("gone"), "g", from: at("2026-01-01"), to: at("2026-02-01")))
        let retry = Subscriber("retry")
        let retryTx = retry.transaction("r", purchased: at("2026-02-10"), expires: at("2026-03-10"))
        events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-02-10"), transaction: retryTx))
        events.append(apple.notification("DID_FAIL_TO_RENEW", signed: at("2026-03-10"), transaction: retryTx,
                                         renewal: retry.renewal(signed: at("2026-03-10"), expirationIntent: 2, billingRetry: true)))
        var grace = Subscriber("grace")
        grace.price = 4990
        let graceTx = grace.transaction("gr", purchased: at("2026-02-14"), expires: at("2026-03-14"))
        events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-02-14"), transaction: graceTx))
        events.append(apple.notification("DID_FAIL_TO_RENEW", "GRACE_PERIOD", signed: at("2026-03-14"), transaction: graceTx,
                                         renewal: grace.renewal(signed: at("2026-03-14"), expirationIntent: 2, billingRetry: true,
                                                                graceEnds: at("2026-03-30"))))
        // A free trial whose conversion failed into grace: entitled, a trial's period type, nothing paid.
        let converting = Subscriber("converting")
        let trialTx = converting.transaction("c", purchased: at("2026-03-07"), expires: at("2026-03-14"), trial: true)
        events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-03-07"), transaction: trialTx))
        events.append(apple.notification("DID_FAIL_TO_RENEW", "GRACE_PERIOD", signed: at("2026-03-14"), transaction: trialTx,
                                         renewal: converting.renewal(signed: at("2026-03-14"), expirationIntent: 2, billingRetry: true,
                                                                     graceEnds: at("2026-03-30"))))
        let ledger = TestLedger(events)
        let report = ledger.projection.mrr(at: instant, scope: production)
        #expect(report.rows == [MRRRow(currency: "USD", mrr: 4990, arr: 59880, activeSubscriptions: 1, activeTrials: 2,
                                       activeCommitments: 0, committedRevenueRemaining: 0)])
        let state = try #require(ledger.customer("converting", at: instant)?.subscriptions.first)
        #expect(state.entitled && state.periodType == .trial)
        let reader = RollupReader(source: ledger.projection.rollups(RollupSettings()), strings: ledger.projection.strings)
        #expect(reader.mrr(at: instant, environment: .production) == report, "the same from the rollups")
    }

    /// A month bought on `bought` whose renewal due on `due` fails: into a grace period until
    /// `graceEnds`, or (nil) straight into billing retry.
    func failedRenewal(_ apple: inout Notifier, _ sub: Subscriber, _ id: String, bought: String, due: String, graceEnds: String?) -> [Event] {
        let lapsing = sub.transaction(id, purchased: at(bought), expires: at(due))
        return [
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at(bought), transaction: lapsing),
            apple.notification("DID_FAIL_TO_RENEW", graceEnds == nil ? nil : "GRACE_PERIOD", signed: at(due), transaction: lapsing,
                               renewal: sub.renewal(signed: at(due), expirationIntent: 2, billingRetry: true, graceEnds: graceEnds.map { at($0) })),
        ]
    }

    @Test("a renewal recovered late in grace keeps its renewal date and is still billed monthly; one recovered in billing retry, or an upgrade bought in grace, starts a new month")
    func recoveredRenewalsKeepTheirPeriod() throws {
        var apple = Notifier()
        var events: [Event] = []
        // Due on 28 February, recovered on 12 March in a 16-day grace period: Apple keeps the
        // renewal date, so the transaction runs 16 days, nearer a week than a month.
        let grace = Subscriber("grace")
        events += failedRenewal(&apple, grace, "g1", bought: "2025-01-28", due: "2025-02-28", graceEnds: "2025-03-16")
        events.append(apple.notification("DID_RENEW", "BILLING_RECOVERY", signed: at("2025-03-12"),
                                         transaction: grace.transaction("g2", purchased: at("2025-03-12"), expires: at("2025-03-28"))))
        // Without grace the renewal date moves to the recovery: a whole month from it.
        let retry = Subscriber("retry")
        events += failedRenewal(&apple, retry, "r1", bought: "2025-01-20", due: "2025-02-20", graceEnds: nil)
        events.append(apple.notification("DID_RENEW", "BILLING_RECOVERY", signed: at("2025-03-09"),
                                         transaction: retry.transaction("r2", purchased: at("2025-03-09"), expires: at("2025-04-09"))))
        // An upgrade bought on day 15 of grace starts a month at its purchase: measured from the
        // missed renewal date it would span 46 days and read as two months.
        var upgrading = Subscriber("upgrade")
        events += failedRenewal(&apple, upgrading, "u1", bought: "2025-01-25", due: "2025-02-25", graceEnds: "2025-03-13")
        upgrading.productId = "pro.monthly.plus"
        events.append(apple.notification("DID_CHANGE_RENEWAL_PREF", "UPGRADE", signed: at("2025-03-12"),
                                         transaction: upgrading.transaction("u2", purchased: at("2025-03-12"), expires: at("2025-04-12"))))
        let ledger = TestLedger(events)
        let reader = RollupReader(source: ledger.projection.rollups(RollupSettings()), strings: ledger.projection.strings)
        for day in ["2025-03-01", "2025-03-13", "2025-03-27"] {
            let folded = ledger.projection.mrr(at: at(day), scope: production)
            let expected: [Int64] = day == "2025-03-01" ? [2 * 9990] : [3 * 9990]
            #expect(folded.rows.map(\.mrr) == expected, "MRR on \(day)")
            #expect(reader.mrr(at: at(day), environment: .production) == folded, "MRR on \(day) from the rollups")
        }
    }

    @Test("a monthly-billed commitment counts its monthly price and the periods not yet billed")
    func commitment() throws {
        var apple = Notifier()
        var sub = Subscriber("committed")
        sub.productId = "pro.yearly"
        sub.price = 10990
        var t = sub.transaction("c3", purchased: at("2026-03-01"), expires: at("2026-04-01"))
        t.billingPlanType = "MONTHLY"
        t.commitment = .init(billingPeriodNumber: 3, totalBillingPeriods: 12, commitmentExpiresDate: at("2026-12-01"),
                             commitmentPrice: 131_880)
        let ledger = TestLedger([apple.notification("DID_RENEW", signed: at("2026-03-01"), transaction: t)])
        let catalog = ProductCatalog(products: [.init(productId: "pro.yearly", period: "P1Y")])
        let report = ledger.projection.mrr(at: instant, scope: ReportScope(environment: .production, catalog: catalog))
        #expect(report.rows == [MRRRow(currency: "USD", mrr: 10990, arr: 131_880, activeSubscriptions: 1, activeTrials: 0,
                                       activeCommitments: 1, committedRevenueRemaining: 9 * 10990)])
    }

    @Test("currencies get their own rows")
    func currencies() throws {
        var apple = Notifier()
        var eur = Subscriber("eur")
        eur.currency = "EUR"
        let ledger = TestLedger([
            subscribed(&apple, eur, "e", from: at("2026-03-01"), to: at("2026-04-01"), price: 8990),
            subscribed(&apple, Subscriber("usd"), "u", from: at("2026-03-01"), to: at("2026-04-01"), price: 9990),
        ])
        #expect(ledger.projection.mrr(at: instant, scope: production).rows.map { "\($0.currency) \($0.mrr)" } == ["EUR 8990", "USD 9990"])
    }
}

@Suite("Churn and cohort reports")
struct ChurnCohortReportTests {
    let production = ReportScope(environment: .production)

    @Test("March of the scenario: churn by reason, new, reactivated, trials and commitments")
    func march() throws {
        let ledger = TestLedger(MarchScenario().events)
        let report = ledger.projection.churn(from: UTCDay("2026-03-01")!, to: UTCDay("2026-03-31")!, scope: production)
        var reasons = ChurnReasons()
        reasons.voluntary = 1
        reasons.billingError = 1
        reasons.refund = 1
        let march = try #require(report.rows.first)
        #expect(report.rows.count == 1)
        #expect(march.period == "2026-03")
        #expect(march.activeAtStart == 5)
        #expect(march.newPaid == 2)
        #expect(march.churned == 3)
        #expect(march.churnRate == 0.6)
        #expect(march.byReason == reasons)
        #expect(march.reactivated == 1)
        #expect(march.trialsStarted == 2)
        #expect(march.trialsConverted == 1)
        #expect(march.trialConversionRate == 0.5)
        #expect(march.commitmentsStarted == 1)
        #expect(march.commitmentsCompleted == 0)
        #expect(march.commitmentsDefaulted == 0)
    }

    @Test("month by month, the scenario's subscribers enter and leave as told")
    func months() throws {
        let ledger = TestLedger(MarchScenario().events)
        let report = ledger.projection.churn(from: UTCDay("2026-01-01")!, to: UTCDay("2026-04-30")!, scope: production)
        #expect(report.rows.map(\.period) == ["2026-01", "2026-02", "2026-03", "2026-04"])
        // G starts at the first instant of January: active at the start and new in the month.
        #expect(report.rows.map(\.activeAtStart) == [1, 2, 5, 5])
        #expect(report.rows.map(\.newPaid) == [3, 3, 2, 0])
        // G's only period ends exactly at Feb 1: it churns in January (auto-renew on: reason other).
        // April: E, G and I end their last periods unrenewed (auto-renew on: reason other).
        #expect(report.rows.map(\.churned) == [1, 0, 3, 3])
        #expect(report.rows[0].byReason.other == 1)
        #expect(report.rows[0].churnRate == 1)
        #expect(report.rows[3].byReason.other == 3)
        // I's first commitment period ends Apr 1 10:00 unrenewed: a default.
        #expect(report.rows[3].commitmentsDefaulted == 1)
    }

    @Test("a comeback at the first millisecond of a period is reactivated in it, as one a millisecond later is, and so is a return after a lapse at that millisecond: by the fold and by the rollups, by month, by day and in a cut month")
    func comebackAtThePeriodsFirstInstant() throws {
        var apple = Notifier()
        var events: [Event] = []
        // P and Q lapse Feb 1 and come back at Mar 1 and a millisecond later; R lapses at Mar 1
        // itself (churn in February) and comes back Mar 10.
        for (id, lapse, back) in [("P", at("2026-02-01"), at("2026-03-01")), ("Q", at("2026-02-01"), at("2026-03-01") + 1), ("R", at("2026-03-01"), at("2026-03-10"))] {
            let sub = Subscriber(id)
            let first = sub.transaction(id + "0", purchased: at("2026-01-01"), expires: lapse)
            let again = sub.transaction(id + "1", purchased: back, expires: back + 31 * 86_400_000)
            events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first, renewal: sub.renewal(signed: at("2026-01-01"))))
            events.append(apple.notification("SUBSCRIBED", "RESUBSCRIBE", signed: back, transaction: again, renewal: sub.renewal(signed: back)))
        }
        let folded = TestLedger(events).projection
        let data = try DataDirectory()
        try data.append(events)
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        for (granularity, from, to, reactivated) in [(ReportGranularity.month, "2026-01-01", "2026-04-30", 3), (.month, "2026-03-01", "2026-03-15", 3),
                                                     (.day, "2026-03-01", "2026-03-01", 2)] {
            let fold = folded.churn(from: UTCDay(from)!, to: UTCDay(to)!, by: granularity, scope: production)
            let rollups = try store.reader.churn(from: UTCDay(from)!, to: UTCDay(to)!, by: granularity, scope: production)
            #expect(fold == rollups, "\(granularity) \(from) to \(to)")
            let march = try #require(fold.rows.first { $0.period.hasPrefix("2026-03") })
            #expect(march.reactivated == reactivated, "\(granularity) \(from) to \(to): P at the first instant, Q a millisecond later, R after its lapse at the start")
            #expect(march.activeAtStart == 1, "P is paid at the start; R's period ended there")
        }
    }

    @Test("commitments complete when the last billing period is paid, default when entitlement ends first")
    func commitments() throws {
        var apple = Notifier()
        var sub = Subscriber("complete")
        sub.price = 10990
        var events: [Event] = []
        func period(_ sub: Subscriber, _ number: Int, start: Int64, end: Int64) -> TransactionFacts {
            var t = sub.transaction("\(sub.originalTransactionId).\(number)", purchased: start, expires: end)
            t.billingPlanType = "MONTHLY"
            t.commitment = .init(billingPeriodNumber: number, totalBillingPeriods: 12,
                                 commitmentExpiresDate: at("2026-04-01"), commitmentPrice: 131_880)
            return t
        }
        for number in 1...12 {
            let start = UTCMonth(number: UTCMonth("2025-04")!.number + number - 1).start
            let end = UTCMonth(number: UTCMonth("2025-04")!.number + number).start
            events.append(apple.notification(number == 1 ? "SUBSCRIBED" : "DID_RENEW", number == 1 ? "INITIAL_BUY" : nil,
                                             signed: start, transaction: period(sub, number, start: start, end: end)))
        }
        let defaulting = Subscriber("default")
        for (number, start, end) in [(1, "2026-01-10", "2026-02-10"), (2, "2026-02-10", "2026-03-10")] {
            events.append(apple.notification(number == 1 ? "SUBSCRIBED" : "DID_RENEW", number == 1 ? "INITIAL_BUY" : nil,
                                             signed: at(start), transaction: period(defaulting, number, start: at(start), end: at(end))))
        }
        let report = TestLedger(events).projection.churn(from: UTCDay("2026-01-01")!, to: UTCDay("2026-03-31")!, scope: production)
        #expect(report.rows.map(\.commitmentsStarted) == [1, 0, 0])
        #expect(report.rows.map(\.commitmentsCompleted) == [0, 0, 1])
        #expect(report.rows.map(\.commitmentsDefaulted) == [0, 0, 1])
    }

    @Test("cohorts group by first paid month; retained counts paid entitlement at each following month start")
    func cohorts() throws {
        var apple = Notifier()
        var events: [Event] = []
        let p = Subscriber("P")
        for (id, start, end) in [("p1", "2026-01-05", "2026-02-05"), ("p2", "2026-02-05", "2026-03-05"),
                                 ("p3", "2026-03-05", "2026-04-05"), ("p4", "2026-04-05", "2026-05-05")] {
            events.append(apple.notification("DID_RENEW", signed: at(start), transaction: p.transaction(id, purchased: at(start), expires: at(end))))
        }
        events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-20"),
                                         transaction: Subscriber("Q").transaction("q1", purchased: at("2026-01-20"), expires: at("2026-02-20"))))
        let r = Subscriber("R")
        events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-25"),
                                         transaction: r.transaction("r0", purchased: at("2026-01-25"), expires: at("2026-02-01"), trial: true)))
        for (id, start, end) in [("r1", "2026-02-01", "2026-03-01"), ("r2", "2026-03-01", "2026-04-01")] {
            events.append(apple.notification("DID_RENEW", signed: at(start), transaction: r.transaction(id, purchased: at(start), expires: at(end))))
        }
        let s = Subscriber("S")
        let bought = s.transaction("s1", purchased: at("2026-01-31"), expires: at("2026-02-28"))
        var refunded = bought
        refunded.revocationDate = at("2026-01-31", 1)
        refunded.revocationType = "REFUND_FULL"
        refunded.signedDate = at("2026-01-31", 1)
        events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-31"), transaction: bought))
        events.append(apple.notification("REFUND", signed: at("2026-01-31", 1), transaction: refunded))
        var family = Subscriber("family")
        family.ownership = "FAMILY_SHARED"
        events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-02"),
                                         transaction: family.transaction("fam", purchased: at("2026-01-02"), expires: at("2026-06-02"))))

        let report = TestLedger(events).projection.cohorts(
            from: UTCMonth("2026-01")!, to: UTCMonth("2026-03")!, now: at("2026-04-15"), scope: production)
        #expect(report.rows == [
            CohortRow(cohort: "2026-01", size: 3, retained: [2, 1, 1]),
            CohortRow(cohort: "2026-02", size: 1, retained: [1, 0]),
        ])
    }
}
