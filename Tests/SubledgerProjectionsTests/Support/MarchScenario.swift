import SubledgerEvents
import SubledgerProjections

/// Ten subscribers around March 2026, each in a different situation; the churn, order and
/// snapshot tests reuse them. What March should report (worked out by hand):
///
/// | sub | story | at Mar 1 | in March |
/// |---|---|---|---|
/// | A | monthly from Jan 15, renews every 15th | paid | — |
/// | B | monthly from Jan 10, cancels, ends Mar 10 (intent 1) | paid | churned, voluntary |
/// | C | monthly from Feb 5, billing retry from Mar 5, never recovers | paid | churned, billing error |
/// | D | monthly from Feb 20, refunded Mar 3 | paid | churned, refund |
/// | E | trial Mar 2–9, converts Mar 9 | — | new paid, trial converted |
/// | F | trial Mar 12–19, lets it lapse | — | trial not converted, not churn |
/// | G | Jan 1 – Feb 1, resubscribes Mar 20 | — | reactivated |
/// | H | monthly from Feb 25, grace from Mar 25 to Apr 10, recovers Apr 2 | paid | — |
/// | I | 12-month commitment billed monthly from Mar 1 10:00 | — | new paid, commitment started |
/// | J | family-shared, monthly from Feb 1 | (never counted) | — |
struct MarchScenario {
    var events: [Event] = []
    private var apple = Notifier()

    init() {
        subscriberA()
        subscriberB()
        subscriberC()
        subscriberD()
        subscriberE()
        subscriberF()
        subscriberG()
        subscriberH()
        subscriberI()
        subscriberJ()
    }

    static let ids = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J"].map { "sub-" + $0 }

    private mutating func monthly(_ sub: Subscriber, _ ids: [String], from months: [String], day: String) {
        for (index, id) in ids.enumerated() {
            let start = at("2026-\(months[index])-\(day)")
            let end = index + 1 < months.count ? at("2026-\(months[index + 1])-\(day)") : at("2026-\(nextMonth(months[index]))-\(day)")
            let t = sub.transaction(id, purchased: start, expires: end)
            events.append(apple.notification(index == 0 ? "SUBSCRIBED" : "DID_RENEW", index == 0 ? "INITIAL_BUY" : nil,
                                             signed: start, transaction: t, renewal: sub.renewal(signed: start)))
        }
    }

    private func nextMonth(_ month: String) -> String {
        let next = Int(month)! + 1
        return next < 10 ? "0\(next)" : "\(next)"
    }

    private mutating func subscriberA() {
        monthly(Subscriber("sub-A"), ["a1", "a2", "a3", "a4"], from: ["01", "02", "03", "04"], day: "15")
    }

    private mutating func subscriberB() {
        let sub = Subscriber("sub-B")
        monthly(sub, ["b1", "b2"], from: ["01", "02"], day: "10")
        let current = sub.transaction("b2", purchased: at("2026-02-10"), expires: at("2026-03-10"))
        events.append(apple.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", signed: at("2026-02-20"),
                                         transaction: current, renewal: sub.renewal(signed: at("2026-02-20"), autoRenew: false)))
        events.append(apple.notification("EXPIRED", "VOLUNTARY", signed: at("2026-03-10", 0, 1), transaction: current,
                                         renewal: sub.renewal(signed: at("2026-03-10", 0, 1), autoRenew: false, expirationIntent: 1)))
    }

    private mutating func subscriberC() {
        let sub = Subscriber("sub-C")
        monthly(sub, ["c1"], from: ["02"], day: "05")
        let current = sub.transaction("c1", purchased: at("2026-02-05"), expires: at("2026-03-05"))
        events.append(apple.notification("DID_FAIL_TO_RENEW", signed: at("2026-03-05", 0, 1), transaction: current,
                                         renewal: sub.renewal(signed: at("2026-03-05", 0, 1), expirationIntent: 2, billingRetry: true)))
    }

    private mutating func subscriberD() {
        let sub = Subscriber("sub-D")
        monthly(sub, ["d1"], from: ["02"], day: "20")
        var refunded = sub.transaction("d1", purchased: at("2026-02-20"), expires: at("2026-03-20"), signed: at("2026-03-03"))
        refunded.revocationDate = at("2026-03-03")
        refunded.revocationType = "REFUND_FULL"
        events.append(apple.notification("REFUND", signed: at("2026-03-03"), transaction: refunded))
    }

    private mutating func subscriberE() {
        let sub = Subscriber("sub-E")
        let trial = sub.transaction("e1", purchased: at("2026-03-02"), expires: at("2026-03-09"), trial: true)
        let paid = sub.transaction("e2", purchased: at("2026-03-09"), expires: at("2026-04-09"))
        events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-03-02"), transaction: trial,
                                         renewal: sub.renewal(signed: at("2026-03-02"))))
        events.append(apple.notification("DID_RENEW", signed: at("2026-03-09"), transaction: paid,
                                         renewal: sub.renewal(signed: at("2026-03-09"))))
    }

    private mutating func subscriberF() {
        let sub = Subscriber("sub-F")
        let trial = sub.transaction("f1", purchased: at("2026-03-12"), expires: at("2026-03-19"), trial: true)
        events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-03-12"), transaction: trial,
                                         renewal: sub.renewal(signed: at("2026-03-12"))))
        events.append(apple.notification("EXPIRED", "VOLUNTARY", signed: at("2026-03-19"), transaction: trial,
                                         renewal: sub.renewal(signed: at("2026-03-19"), autoRenew: false, expirationIntent: 1)))
    }

    private mutating func subscriberG() {
        let sub = Subscriber("sub-G")
        monthly(sub, ["g1"], from: ["01"], day: "01")
        let again = sub.transaction("g2", purchased: at("2026-03-20"), expires: at("2026-04-20"))
        events.append(apple.notification("SUBSCRIBED", "RESUBSCRIBE", signed: at("2026-03-20"), transaction: again,
                                         renewal: sub.renewal(signed: at("2026-03-20"))))
    }

    private mutating func subscriberH() {
        let sub = Subscriber("sub-H")
        monthly(sub, ["h1"], from: ["02"], day: "25")
        let current = sub.transaction("h1", purchased: at("2026-02-25"), expires: at("2026-03-25"))
        events.append(apple.notification("DID_FAIL_TO_RENEW", "GRACE_PERIOD", signed: at("2026-03-25", 0, 1), transaction: current,
                                         renewal: sub.renewal(signed: at("2026-03-25", 0, 1), expirationIntent: 2,
                                                              billingRetry: true, graceEnds: at("2026-04-10"))))
        let recovered = sub.transaction("h2", purchased: at("2026-04-02"), expires: at("2026-05-02"))
        events.append(apple.notification("DID_RENEW", "BILLING_RECOVERY", signed: at("2026-04-02"), transaction: recovered,
                                         renewal: sub.renewal(signed: at("2026-04-02"))))
    }

    private mutating func subscriberI() {
        var sub = Subscriber("sub-I")
        sub.productId = "pro.yearly"
        sub.price = 10990
        var t = sub.transaction("i1", purchased: at("2026-03-01", 10), expires: at("2026-04-01", 10))
        t.billingPlanType = "MONTHLY"
        t.commitment = .init(billingPeriodNumber: 1, totalBillingPeriods: 12, commitmentExpiresDate: at("2027-03-01", 10),
                             commitmentPrice: 131_880)
        events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-03-01", 10), transaction: t,
                                         renewal: sub.renewal(signed: at("2026-03-01", 10))))
    }

    private mutating func subscriberJ() {
        var sub = Subscriber("sub-J")
        sub.ownership = "FAMILY_SHARED"
        monthly(sub, ["j1", "j2", "j3"], from: ["02", "03", "04"], day: "01")
    }
}
