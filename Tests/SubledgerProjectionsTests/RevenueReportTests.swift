import SubledgerEvents
import SubledgerProjections
import Testing

@Suite("Revenue report")
struct RevenueReportTests {
    let production = ReportScope(environment: .production)

    /// Monthly renewals on the `day` of each month in `months` (YYYY-MM), at `price`.
    func renewals(_ sub: Subscriber, _ apple: inout Notifier, months: [String], day: String, price: Int64? = nil) -> [Event] {
        months.enumerated().map { index, month in
            let start = at("\(month)-\(day)")
            let end = at(index + 1 < months.count ? "\(months[index + 1])-\(day)" : nextMonth(month) + "-\(day)")
            let t = sub.transaction("\(sub.originalTransactionId).\(index)", purchased: start, expires: end, price: price)
            return apple.notification(index == 0 ? "SUBSCRIBED" : "DID_RENEW", index == 0 ? "INITIAL_BUY" : nil,
                                      signed: start, transaction: t)
        }
    }

    func nextMonth(_ month: String) -> String {
        let parsed = UTCMonth(month)!
        return UTCMonth(number: parsed.number + 1).description
    }

    func months(from first: String, count: Int) -> [String] {
        let start = UTCMonth(first)!.number
        return (0..<count).map { UTCMonth(number: start + $0).description }
    }

    @Test("sales are booked by purchase date per currency; trials and family-shared copies are not revenue")
    func salesByMonth() throws {
        var apple = Notifier()
        let usd = Subscriber("usd")
        var eur = Subscriber("eur")
        eur.currency = "EUR"
        eur.price = 4990
        var family = Subscriber("family")
        family.ownership = "FAMILY_SHARED"
        var events = renewals(usd, &apple, months: ["2026-01", "2026-02", "2026-03"], day: "05")
        events += renewals(family, &apple, months: ["2026-01", "2026-02"], day: "07")
        let trial = eur.transaction("eur.trial", purchased: at("2026-01-20"), expires: at("2026-01-27"), trial: true)
        events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-20"), transaction: trial))
        for (id, start, end) in [("eur.1", "2026-01-27", "2026-02-27"), ("eur.2", "2026-02-27", "2026-03-27")] {
            events.append(apple.notification("DID_RENEW", signed: at(start),
                                             transaction: eur.transaction(id, purchased: at(start), expires: at(end))))
        }
        let ledger = TestLedger(events)
        let report = ledger.projection.revenue(from: UTCDay("2026-01-01")!, to: UTCDay("2026-03-31")!, scope: production)
        let row = { (period: String, currency: String, gross: Int64, proceeds: Int64) in
            RevenueRow(period: period, currency: currency, productId: nil, grossSales: gross, refunds: 0, net: gross,
                       proceeds: proceeds, transactions: 1, refundedTransactions: 0)
        }
        #expect(report.rows == [
            row("2026-01", "EUR", 4990, 3493), row("2026-01", "USD", 9990, 6993),
            row("2026-02", "EUR", 4990, 3493), row("2026-02", "USD", 9990, 6993),
            row("2026-03", "USD", 9990, 6993),
        ])
        #expect(report.environment == "Production")
        #expect(report.by == .month)
        #expect(report.refunds == .refundDate)
    }

    @Test("rows are per day and per product when asked, and limited to the days requested")
    func byDayAndProduct() throws {
        var apple = Notifier()
        let basic = Subscriber("basic")
        var pro = Subscriber("pro")
        pro.productId = "pro.yearly"
        pro.price = 99990
        let events = [
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-05", 10),
                               transaction: basic.transaction("b1", purchased: at("2026-01-05", 10), expires: at("2026-02-05", 10))),
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-05", 23),
                               transaction: pro.transaction("p1", purchased: at("2026-01-05", 23), expires: at("2027-01-05", 23))),
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-07"),
                               transaction: basic.transaction("b2", purchased: at("2026-01-07"), expires: at("2026-02-07"))),
        ]
        let ledger = TestLedger(events)
        let report = ledger.projection.revenue(
            from: UTCDay("2026-01-05")!, to: UTCDay("2026-01-06")!, by: .day, byProduct: true, scope: production)
        #expect(report.rows.map { [$0.period, $0.productId ?? "-", String($0.grossSales), String($0.proceeds)] } == [
            ["2026-01-05", "pro.monthly", "9990", "6993"],
            ["2026-01-05", "pro.yearly", "99990", "69993"],
        ])
    }

    /// A prorated refund of a 10.00 purchase in January, refunded on Feb 3 at 50 %, reversed
    /// on Mar 2.
    func refundedLedger(reversed: Bool) -> TestLedger {
        var apple = Notifier()
        var sub = Subscriber("refunds")
        sub.price = 10000
        let bought = sub.transaction("r1", purchased: at("2026-01-10"), expires: at("2026-02-10"))
        let refunded = bought.refunded(at: at("2026-02-03"), percentage: 50000)
        var restored = bought
        restored.signedDate = at("2026-03-02")
        var events = [
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-10"), transaction: bought),
            apple.notification("REFUND", signed: at("2026-02-03"), transaction: refunded),
        ]
        if reversed { events.append(apple.notification("REFUND_REVERSED", signed: at("2026-03-02"), transaction: restored)) }
        return TestLedger(events)
    }

    @Test("a prorated refund is booked at its revocation date, or in the purchase's period by the original convention")
    func proratedRefund() throws {
        let ledger = refundedLedger(reversed: false)
        let byRefundDate = ledger.projection.revenue(from: UTCDay("2026-01-01")!, to: UTCDay("2026-03-31")!, scope: production)
        #expect(byRefundDate.rows == [
            RevenueRow(period: "2026-01", currency: "USD", productId: nil, grossSales: 10000, refunds: 0, net: 10000,
                       proceeds: 7000, transactions: 1, refundedTransactions: 0),
            RevenueRow(period: "2026-02", currency: "USD", productId: nil, grossSales: 0, refunds: 5000, net: -5000,
                       proceeds: -3500, transactions: 0, refundedTransactions: 1),
        ])
        let original = ledger.projection.revenue(
            from: UTCDay("2026-01-01")!, to: UTCDay("2026-03-31")!, refunds: .original, scope: production)
        #expect(original.rows == [
            RevenueRow(period: "2026-01", currency: "USD", productId: nil, grossSales: 10000, refunds: 5000, net: 5000,
                       proceeds: 3500, transactions: 1, refundedTransactions: 1),
        ])
    }

    @Test("a reversed refund books a negative refund in its own period, or disappears by the original convention")
    func reversedRefund() throws {
        let ledger = refundedLedger(reversed: true)
        let byRefundDate = ledger.projection.revenue(from: UTCDay("2026-01-01")!, to: UTCDay("2026-03-31")!, scope: production)
        #expect(byRefundDate.rows.map(\.period) == ["2026-01", "2026-02", "2026-03"])
        #expect(byRefundDate.rows.map(\.refunds) == [0, 5000, -5000])
        #expect(byRefundDate.rows.map(\.net) == [10000, -5000, 5000])
        #expect(byRefundDate.rows.map(\.proceeds) == [7000, -3500, 3500])
        #expect(byRefundDate.rows.map(\.refundedTransactions) == [0, 1, -1])  // the reversal undoes the count where it is booked

        let original = ledger.projection.revenue(
            from: UTCDay("2026-01-01")!, to: UTCDay("2026-03-31")!, refunds: .original, scope: production)
        #expect(original.rows == [
            RevenueRow(period: "2026-01", currency: "USD", productId: nil, grossSales: 10000, refunds: 0, net: 10000,
                       proceeds: 7000, transactions: 1, refundedTransactions: 0),
        ])
    }

    @Test("a prorated refund topped up to a full one books the rest at its own date: one refunded transaction, the same total by either convention, entitlement ended at the first")
    func refundToppedUp() throws {
        var apple = Notifier()
        var sub = Subscriber("topped")
        sub.price = 10000
        let bought = sub.transaction("t1", purchased: at("2026-01-10"), expires: at("2026-02-10"))
        let prorated = bought.refunded(at: at("2026-01-20"), percentage: 30000)
        var full = bought.refunded(at: at("2026-02-10"))
        full.revocationPercentage = 100_000
        let events = [
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-10"), transaction: bought),
            apple.notification("REFUND", signed: at("2026-01-20"), transaction: prorated),
            apple.notification("REFUND", signed: at("2026-02-10"), transaction: full),
        ]
        // Whatever order they arrive in.
        for ledger in [TestLedger(events), TestLedger(events.reversed())] {
            let (from, to) = (UTCDay("2026-01-01")!, UTCDay("2026-03-31")!)
            let byRefundDate = ledger.projection.revenue(from: from, to: to, scope: production)
            #expect(byRefundDate.rows.map(\.refunds) == [3000, 7000])
            #expect(byRefundDate.rows.map(\.refundedTransactions) == [1, 0])
            #expect(byRefundDate.rows.map(\.proceeds) == [4900, -4900])
            let original = ledger.projection.revenue(from: from, to: to, refunds: .original, scope: production)
            #expect(original.rows.map(\.refunds) == [10000])
            #expect(original.rows.map(\.refundedTransactions) == [1])
            // Entitlement ended at the first refund; the second does not give it back.
            let state = try #require(ledger.subscription("topped", at: at("2026-01-25")))
            #expect(state.status == .revoked && state.revokedAt == at("2026-01-20"))
            #expect(ledger.projection.mrr(at: at("2026-02-01"), scope: production).rows.isEmpty)
        }
    }

    @Test("prorated amounts and proceeds are rounded half away from zero, per transaction")
    func rounding() throws {
        var apple = Notifier()
        var sub = Subscriber("round")
        sub.price = 1005
        let bought = sub.transaction("x1", purchased: at("2026-01-10"), expires: at("2026-02-10"))
        let refunded = bought.refunded(at: at("2026-01-20"), percentage: 50000)
        var second = Subscriber("round2")
        second.price = 1005
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-10"), transaction: bought),
            apple.notification("REFUND", signed: at("2026-01-20"), transaction: refunded),
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-11"),
                               transaction: second.transaction("y1", purchased: at("2026-01-11"), expires: at("2026-02-11"))),
        ])
        let report = ledger.projection.revenue(from: UTCDay("2026-01-01")!, to: UTCDay("2026-01-31")!, scope: production)
        let row = try #require(report.rows.first)
        // x1: refund 1005 × 50 % = 502.5 → 503; net 502, proceeds 351.4 → 351.
        // y1: proceeds 703.5 → 704. Rounding the row's 1507 × 0.7 = 1054.9 once would give 1055.
        #expect(row.grossSales == 2010)
        #expect(row.refunds == 503)
        #expect(row.net == 1507)
        #expect(row.proceeds == 351 + 704)
    }

    @Test("proceeds rise to 85 % after one year of paid service, and with the small-business flag")
    func proceedsAfterOneYear() throws {
        var apple = Notifier()
        let sub = Subscriber("loyal")
        let ledger = TestLedger(renewals(sub, &apple, months: months(from: "2025-01", count: 14), day: "01"))
        let report = ledger.projection.revenue(from: UTCDay("2025-12-01")!, to: UTCDay("2026-02-28")!, scope: production)
        // Twelve months of paid service end on 2026-01-01: the renewal bought then is past a year.
        #expect(report.rows.map(\.proceeds) == [6993, 8492, 8492])

        let small = ledger.projection.revenue(
            from: UTCDay("2025-01-01")!, to: UTCDay("2025-01-31")!, smallBusiness: true, scope: production)
        #expect(small.rows.map(\.proceeds) == [8492])
    }

    @Test("free trials and renewal extensions don't count toward the year; a lapse over 60 days restarts it")
    func proceedsYearRules() throws {
        // A one-month trial then twelve paid months: the 13th paid month is the first at 85 %.
        var apple = Notifier()
        let trialFirst = Subscriber("trial-first")
        var events = [apple.notification(
            "SUBSCRIBED", "INITIAL_BUY", signed: at("2025-01-01"),
            transaction: trialFirst.transaction("tf.trial", purchased: at("2025-01-01"), expires: at("2025-02-01"), trial: true))]
        events += renewals(trialFirst, &apple, months: months(from: "2025-02", count: 13), day: "01")
        let trialLedger = TestLedger(events)
        let trialReport = trialLedger.projection.revenue(from: UTCDay("2026-01-01")!, to: UTCDay("2026-02-28")!, scope: production)
        #expect(trialReport.rows.map(\.proceeds) == [6993, 8492])

        // Eleven paid months, the last extended by a month: the year is not reached on 2026-01-01.
        var extendedEvents = renewals(Subscriber("extended"), &apple, months: months(from: "2025-01", count: 11), day: "01")
        var extended = Subscriber("extended").transaction("extended.10", purchased: at("2025-11-01"), expires: at("2026-01-01"),
                                                          signed: at("2025-11-20"))
        extendedEvents.append(apple.notification("RENEWAL_EXTENDED", signed: at("2025-11-20"), transaction: extended))
        extended = Subscriber("extended").transaction("extended.11", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        extendedEvents.append(apple.notification("DID_RENEW", signed: at("2026-01-01"), transaction: extended))
        let extendedReport = TestLedger(extendedEvents).projection.revenue(
            from: UTCDay("2026-01-01")!, to: UTCDay("2026-01-31")!, scope: production)
        #expect(extendedReport.rows.map(\.proceeds) == [6993])

        // A year of paid service, then a lapse: 59 days keeps the 85 %, 61 days restarts at 70 %.
        for (lapseDays, expected) in [(59, Int64(8492)), (61, Int64(6993))] {
            var notifier = Notifier()
            let sub = Subscriber("lapse-\(lapseDays)")
            var lapseEvents = renewals(sub, &notifier, months: months(from: "2025-01", count: 12), day: "01")
            let back = at("2026-01-01") + Int64(lapseDays) * day
            lapseEvents.append(notifier.notification(
                "SUBSCRIBED", "RESUBSCRIBE", signed: back,
                transaction: sub.transaction("back", purchased: back, expires: back + 30 * day)))
            let report = TestLedger(lapseEvents).projection.revenue(
                from: UTCDay(containing: back), to: UTCDay(containing: back), scope: production)
            #expect(report.rows.map(\.proceeds) == [expected], "lapse of \(lapseDays) days")
        }
    }

    @Test("days in a billing grace period the subscription recovered in are paid service; days in billing retry are not", arguments: [true, false])
    func graceDaysArePaidService(recoveredInGrace: Bool) throws {
        // Eleven paid months to 2025-12-01, then a failed renewal with 16 days of grace. Recovered
        // four days into grace (the renewal date kept), the year is whole 27 days later: 334 + 4
        // + 27 days. Recovered 20 days in, in billing retry, for a period as long, it is not.
        var apple = Notifier()
        let sub = Subscriber("graceful")
        var events = renewals(sub, &apple, months: months(from: "2025-01", count: 11), day: "01")
        let expired = at("2025-12-01")
        let lastPaid = sub.transaction("graceful.10", purchased: at("2025-11-01"), expires: expired)
        events.append(apple.notification(
            "DID_FAIL_TO_RENEW", "GRACE_PERIOD", signed: expired, transaction: lastPaid,
            renewal: sub.renewal(signed: expired, expirationIntent: 2, billingRetry: true, graceEnds: expired + 16 * day)))
        let recovery = recoveredInGrace ? expired + 4 * day : expired + 20 * day
        let recovered = sub.transaction("graceful.11", purchased: recovery, expires: recovery + 27 * day)
        events.append(apple.notification("DID_RENEW", "BILLING_RECOVERY", signed: recovery, transaction: recovered))
        let next = recovered.expiresDate!
        events.append(apple.notification(
            "DID_RENEW", signed: next, transaction: sub.transaction("graceful.12", purchased: next, expires: next + 31 * day)))
        let report = TestLedger(events).projection.revenue(from: UTCDay(containing: next), to: UTCDay(containing: next), scope: production)
        // Without the grace days, 334 + 27 = 361 days: short of the year.
        #expect(report.rows.map(\.proceeds) == [recoveredInGrace ? 8492 : 6993], "recovered \(recoveredInGrace ? "in grace" : "in billing retry")")
    }

    @Test("one-time purchases are revenue at 70 %")
    func oneTimePurchase() throws {
        var apple = Notifier()
        let coins = TransactionFacts(
            transactionId: "coin1", originalTransactionId: "coin1", productId: "coins", type: "Consumable",
            purchaseDate: at("2026-01-03"), signedDate: at("2026-01-03"), price: 1990, currency: "EUR", ownership: "PURCHASED")
        let ledger = TestLedger([apple.notification("ONE_TIME_CHARGE", signed: at("2026-01-03"), transaction: coins)])
        let report = ledger.projection.revenue(from: UTCDay("2026-01-01")!, to: UTCDay("2026-01-31")!, scope: production)
        #expect(report.rows == [RevenueRow(period: "2026-01", currency: "EUR", productId: nil, grossSales: 1990, refunds: 0,
                                           net: 1990, proceeds: 1393, transactions: 1, refundedTransactions: 0)])
    }

    @Test("another environment's data is not in the report")
    func environments() throws {
        var apple = Notifier()
        var sandbox = Subscriber("sandbox")
        sandbox.environment = .sandbox
        let t = sandbox.transaction("s1", purchased: at("2026-01-03"), expires: at("2026-02-03"))
        let ledger = TestLedger([apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-03"), transaction: t,
                                                    environment: .sandbox)])
        let window = (UTCDay("2026-01-01")!, UTCDay("2026-01-31")!)
        #expect(ledger.projection.revenue(from: window.0, to: window.1, scope: production).rows.isEmpty)
        #expect(ledger.projection.revenue(from: window.0, to: window.1, scope: ReportScope(environment: .sandbox)).rows.count == 1)
        #expect(ledger.projection.defaultReportEnvironment == .sandbox)
    }
}
