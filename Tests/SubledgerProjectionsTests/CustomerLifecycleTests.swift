import SubledgerEvents
import SubledgerLog
import SubledgerProjections
import Testing

@Suite("Customer state through subscription lifecycles")
struct CustomerLifecycleTests {
    @Test("asked for its evidence, a subscription names its latest event and the latest carrying its current transaction: a renewal charged ahead of its period names the next transaction until that period begins")
    func evidenceOfTheCurrentTransaction() throws {
        var apple = Notifier()
        let sub = Subscriber("1100")
        let first = sub.transaction("1100", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        // The App Store charges a renewal before the period it pays for.
        let renewed = sub.transaction("1101", purchased: at("2026-02-01"), expires: at("2026-03-01"), signed: at("2026-01-31", 23, 59))
        var ledger = TestLedger()
        let bought = ledger.post(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first, renewal: sub.renewal(signed: at("2026-01-01"))))
        let renewal = ledger.post(apple.notification("DID_RENEW", signed: at("2026-01-31", 23, 59), transaction: renewed, renewal: sub.renewal(signed: at("2026-01-31", 23, 59))))
        func evidence(at instant: Int64) throws -> (id: String, last: LogPosition?, transaction: LogPosition?) {
            let state = try #require(ledger.projection.customer("1100", asOf: instant, evidence: true)?.subscriptions.first)
            return (state.lastTransactionId, state.lastEventPosition, state.lastTransactionEventPosition)
        }
        #expect(try evidence(at: at("2026-01-15")) == ("1100", bought, bought))
        #expect(try evidence(at: at("2026-01-31", 23, 59) + 30_000) == ("1100", renewal, bought), "the renewal is signed; its period has not begun")
        #expect(try evidence(at: at("2026-02-10")) == ("1101", renewal, renewal))
        #expect(ledger.projection.customer("1100", asOf: at("2026-02-10"))?.subscriptions.first?.lastTransactionEventPosition == nil, "asked for only")
    }

    @Test("a free trial that converts is a trial, then a paid normal period")
    func trialConverted() throws {
        var apple = Notifier()
        let sub = Subscriber("1000")
        let trial = sub.transaction("1000", purchased: at("2026-01-01"), expires: at("2026-01-08"), trial: true)
        let paid = sub.transaction("1001", purchased: at("2026-01-08"), expires: at("2026-02-08"))
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: trial,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            apple.notification("DID_RENEW", signed: at("2026-01-08"), transaction: paid,
                               renewal: sub.renewal(signed: at("2026-01-08"))),
        ])

        let during = try #require(ledger.subscription("1000", at: at("2026-01-03")))
        #expect(during.status == .active)
        #expect(during.entitled)
        #expect(during.periodType == .trial)
        #expect(during.price == 0)
        #expect(during.paidPeriods == 0)
        #expect(during.expiresAt == at("2026-01-08"))

        let after = try #require(ledger.subscription("1000", at: at("2026-01-10")))
        #expect(after.status == .active)
        #expect(after.periodType == .normal)
        #expect(after.price == 9990)
        #expect(after.currency == "USD")
        #expect(after.storefront == "USA")
        #expect(after.paidPeriods == 1)
        #expect(after.lastTransactionId == "1001")
        #expect(after.firstPurchaseAt == at("2026-01-01"))
        #expect(after.expiresAt == at("2026-02-08"))
        #expect(after.autoRenew == true)
        #expect(after.autoRenewProductId == "pro.monthly")
        #expect(after.subscriptionGroupId == "group.pro")
        #expect(after.expirationReason == nil)
        #expect(after.billingPlan == .upfront)
        #expect(after.ownership == .purchased)
    }

    @Test("an abandoned trial keeps running with auto-renew off, then expires voluntarily")
    func trialAbandoned() throws {
        var apple = Notifier()
        let sub = Subscriber("2000")
        let trial = sub.transaction("2000", purchased: at("2026-01-01"), expires: at("2026-01-08"), trial: true)
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: trial,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            apple.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", signed: at("2026-01-03"),
                               transaction: trial, renewal: sub.renewal(signed: at("2026-01-03"), autoRenew: false)),
            apple.notification("EXPIRED", "VOLUNTARY", signed: at("2026-01-08", 0, 5), transaction: trial,
                               renewal: sub.renewal(signed: at("2026-01-08", 0, 5), autoRenew: false, expirationIntent: 1)),
        ])

        let cancelled = try #require(ledger.subscription("2000", at: at("2026-01-05")))
        #expect(cancelled.status == .active)
        #expect(cancelled.entitled)
        #expect(cancelled.autoRenew == false)
        #expect(cancelled.expirationReason == nil)

        let ended = try #require(ledger.subscription("2000", at: at("2026-01-09")))
        #expect(ended.status == .expired)
        #expect(!ended.entitled)
        #expect(ended.expirationReason == .voluntary)
        #expect(ended.periodType == .trial)
        #expect(ended.paidPeriods == 0)
    }

    @Test("a grace period is entitled and paid until the billing recovers")
    func graceRecovered() throws {
        var apple = Notifier()
        let sub = Subscriber("3000")
        let first = sub.transaction("3000", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let recovered = sub.transaction("3001", purchased: at("2026-02-05"), expires: at("2026-03-05"))
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            apple.notification("DID_FAIL_TO_RENEW", "GRACE_PERIOD", signed: at("2026-02-01", 0, 1), transaction: first,
                               renewal: sub.renewal(signed: at("2026-02-01", 0, 1), expirationIntent: 2,
                                                    billingRetry: true, graceEnds: at("2026-02-17"))),
            apple.notification("DID_RENEW", "BILLING_RECOVERY", signed: at("2026-02-05"), transaction: recovered,
                               renewal: sub.renewal(signed: at("2026-02-05"))),
        ])

        let grace = try #require(ledger.subscription("3000", at: at("2026-02-03")))
        #expect(grace.status == .gracePeriod)
        #expect(grace.entitled)
        #expect(grace.gracePeriodExpiresAt == at("2026-02-17"))
        #expect(grace.price == 9990)
        #expect(grace.expirationReason == nil)
        #expect(grace.lastTransactionId == "3000")

        let active = try #require(ledger.subscription("3000", at: at("2026-02-06")))
        #expect(active.status == .active)
        #expect(active.gracePeriodExpiresAt == nil)
        #expect(active.expiresAt == at("2026-03-05"))
        #expect(active.paidPeriods == 2)
    }

    @Test("a grace period that runs out becomes billing retry, then expires with a billing error")
    func graceExpired() throws {
        var apple = Notifier()
        let sub = Subscriber("4000")
        let first = sub.transaction("4000", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            apple.notification("DID_FAIL_TO_RENEW", "GRACE_PERIOD", signed: at("2026-02-01", 0, 1), transaction: first,
                               renewal: sub.renewal(signed: at("2026-02-01", 0, 1), expirationIntent: 2,
                                                    billingRetry: true, graceEnds: at("2026-02-17"))),
            apple.notification("GRACE_PERIOD_EXPIRED", signed: at("2026-02-17", 0, 1), transaction: first,
                               renewal: sub.renewal(signed: at("2026-02-17", 0, 1), expirationIntent: 2,
                                                    billingRetry: true, graceEnds: at("2026-02-17"))),
            apple.notification("EXPIRED", "BILLING_RETRY", signed: at("2026-03-20"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-03-20"), autoRenew: false, expirationIntent: 2,
                                                    billingRetry: false)),
        ])

        let lastGraceMoment = try #require(ledger.subscription("4000", at: at("2026-02-17") - 1))
        #expect(lastGraceMoment.status == .gracePeriod)

        let retry = try #require(ledger.subscription("4000", at: at("2026-02-18")))
        #expect(retry.status == .billingRetry)
        #expect(!retry.entitled)
        #expect(retry.gracePeriodExpiresAt == nil)
        #expect(retry.expirationReason == .billingError)

        let expired = try #require(ledger.subscription("4000", at: at("2026-03-21")))
        #expect(expired.status == .expired)
        #expect(expired.expirationReason == .billingError)
    }

    @Test("billing retry without grace is not entitled, and gives up after 60 days without an EXPIRED notification")
    func billingRetry() throws {
        var apple = Notifier()
        let sub = Subscriber("5000")
        let first = sub.transaction("5000", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            apple.notification("DID_FAIL_TO_RENEW", signed: at("2026-02-01", 0, 1), transaction: first,
                               renewal: sub.renewal(signed: at("2026-02-01", 0, 1), expirationIntent: 2, billingRetry: true)),
        ])

        let retry = try #require(ledger.subscription("5000", at: at("2026-02-02")))
        #expect(retry.status == .billingRetry)
        #expect(!retry.entitled)
        #expect(retry.expirationReason == .billingError)
        #expect(retry.autoRenew == true)

        let stillRetrying = try #require(ledger.subscription("5000", at: at("2026-02-01") + 60 * day - 1))
        #expect(stillRetrying.status == .billingRetry)

        let givenUp = try #require(ledger.subscription("5000", at: at("2026-02-01") + 60 * day))
        #expect(givenUp.status == .expired)
        #expect(givenUp.expirationReason == .billingError)
    }

    @Test("a subscription past its expiry with no further notification is expired (reason other)")
    func expiresWithoutNotification() throws {
        var apple = Notifier()
        let sub = Subscriber("6000")
        let first = sub.transaction("6000", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
        ])
        let lastMoment = try #require(ledger.subscription("6000", at: at("2026-02-01") - 1))
        #expect(lastMoment.status == .active)
        let atExpiry = try #require(ledger.subscription("6000", at: at("2026-02-01")))
        #expect(atExpiry.status == .expired)
        #expect(!atExpiry.entitled)
        #expect(atExpiry.expirationReason == .other)
        #expect(atExpiry.autoRenew == true)
    }

    @Test("cancelling keeps the period running; the reason appears only once it ends")
    func cancellation() throws {
        var apple = Notifier()
        let sub = Subscriber("7000")
        let first = sub.transaction("7000", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let withIntent = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            apple.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", signed: at("2026-01-10"),
                               transaction: first, renewal: sub.renewal(signed: at("2026-01-10"), autoRenew: false,
                                                                        expirationIntent: 1)),
        ])
        let running = try #require(withIntent.subscription("7000", at: at("2026-01-20")))
        #expect(running.status == .active)
        #expect(running.entitled)
        #expect(running.autoRenew == false)
        #expect(running.expirationReason == nil)
        let ended = try #require(withIntent.subscription("7000", at: at("2026-02-02")))
        #expect(ended.status == .expired)
        #expect(ended.expirationReason == .voluntary)

        // Without an expirationIntent, auto-renew off still explains the expiry.
        var other = Notifier()
        let withoutIntent = TestLedger([
            other.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            other.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", signed: at("2026-01-10"),
                               transaction: first, renewal: sub.renewal(signed: at("2026-01-10"), autoRenew: false)),
        ])
        #expect(withoutIntent.subscription("7000", at: at("2026-02-02"))?.expirationReason == .voluntary)

        // Turned back on, the stale intent no longer explains an expiry.
        var again = Notifier()
        let reenabled = TestLedger([
            again.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            again.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_DISABLED", signed: at("2026-01-10"),
                               transaction: first, renewal: sub.renewal(signed: at("2026-01-10"), autoRenew: false,
                                                                        expirationIntent: 1)),
            again.notification("DID_CHANGE_RENEWAL_STATUS", "AUTO_RENEW_ENABLED", signed: at("2026-01-12"),
                               transaction: first, renewal: sub.renewal(signed: at("2026-01-12"))),
        ])
        #expect(reenabled.subscription("7000", at: at("2026-01-20"))?.autoRenew == true)
        #expect(reenabled.subscription("7000", at: at("2026-02-02"))?.expirationReason == .other)
    }

    @Test("a refund ends entitlement at its revocation date; the state before it is unchanged")
    func refund() throws {
        var apple = Notifier()
        let sub = Subscriber("8000")
        let first = sub.transaction("8000", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let second = sub.transaction("8001", purchased: at("2026-02-01"), expires: at("2026-03-01"))
        var refunded = second
        refunded.revocationDate = at("2026-02-10")
        refunded.revocationType = "REFUND_FULL"
        refunded.revocationReason = 0
        refunded.signedDate = at("2026-02-10")
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            apple.notification("DID_RENEW", signed: at("2026-02-01"), transaction: second,
                               renewal: sub.renewal(signed: at("2026-02-01"))),
            apple.notification("REFUND", signed: at("2026-02-10"), transaction: refunded),
        ])
        let before = try #require(ledger.subscription("8000", at: at("2026-02-09")))
        #expect(before.status == .active)
        #expect(before.revocation == nil)
        #expect(before.paidPeriods == 2)

        let after = try #require(ledger.subscription("8000", at: at("2026-02-11")))
        #expect(after.status == .revoked)
        #expect(!after.entitled)
        #expect(after.revocation == .refund)
        #expect(after.revokedAt == at("2026-02-10"))
        #expect(after.expirationReason == nil)
        #expect(after.paidPeriods == 1)
        #expect(ledger.customer("8000", at: at("2026-02-11"))?.entitlements == [])
    }

    @Test("a reversed refund restores the subscription")
    func refundReversed() throws {
        var apple = Notifier()
        let sub = Subscriber("8100")
        let first = sub.transaction("8100", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        var refunded = first
        refunded.revocationDate = at("2026-01-10")
        refunded.revocationType = "REFUND_FULL"
        refunded.signedDate = at("2026-01-10")
        var restored = first
        restored.signedDate = at("2026-01-20")
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first),
            apple.notification("REFUND", signed: at("2026-01-10"), transaction: refunded),
            apple.notification("REFUND_REVERSED", signed: at("2026-01-20"), transaction: restored),
        ])
        #expect(ledger.subscription("8100", at: at("2026-01-15"))?.status == .revoked)
        let back = try #require(ledger.subscription("8100", at: at("2026-01-21")))
        #expect(back.status == .active)
        #expect(back.revocation == nil)
        #expect(back.revokedAt == nil)
        #expect(back.entitled)
    }

    @Test("a price increase is pending, then accepted, and is kept after a renewal")
    func priceIncreaseAccepted() throws {
        var apple = Notifier()
        let sub = Subscriber("9000")
        let first = sub.transaction("9000", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let second = sub.transaction("9001", purchased: at("2026-02-01"), expires: at("2026-03-01"), price: 12990)
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            apple.notification("PRICE_INCREASE", "PENDING", signed: at("2026-01-10"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-10"), priceIncreaseStatus: 0)),
            apple.notification("PRICE_INCREASE", "ACCEPTED", signed: at("2026-01-20"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-20"), priceIncreaseStatus: 1)),
            apple.notification("DID_RENEW", signed: at("2026-02-01"), transaction: second,
                               renewal: sub.renewal(signed: at("2026-02-01"), priceIncreaseStatus: 1)),
        ])
        #expect(ledger.subscription("9000", at: at("2026-01-05"))?.priceIncrease == nil)
        #expect(ledger.subscription("9000", at: at("2026-01-15"))?.priceIncrease == .pending)
        #expect(ledger.subscription("9000", at: at("2026-01-25"))?.priceIncrease == .accepted)
        let renewed = try #require(ledger.subscription("9000", at: at("2026-02-02")))
        #expect(renewed.priceIncrease == .accepted)
        #expect(renewed.price == 12990)
    }

    @Test("a price increase never consented expires the subscription for that reason, still pending")
    func priceIncreaseExpired() throws {
        var apple = Notifier()
        let sub = Subscriber("9100")
        let first = sub.transaction("9100", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            apple.notification("PRICE_INCREASE", "PENDING", signed: at("2026-01-10"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-10"), priceIncreaseStatus: 0)),
            apple.notification("EXPIRED", "PRICE_INCREASE", signed: at("2026-02-01", 0, 2), transaction: first,
                               renewal: sub.renewal(signed: at("2026-02-01", 0, 2), autoRenew: false,
                                                    expirationIntent: 3, priceIncreaseStatus: 0)),
        ])
        let expired = try #require(ledger.subscription("9100", at: at("2026-02-05")))
        #expect(expired.status == .expired)
        #expect(expired.expirationReason == .priceIncrease)
        #expect(expired.priceIncrease == .pending)
    }

    @Test("an upgrade ends the old transaction at the new purchase date; the new price is current")
    func upgrade() throws {
        var apple = Notifier()
        var sub = Subscriber("10000")
        sub.productId = "basic.monthly"
        let basic = sub.transaction("10000", purchased: at("2026-01-01"), expires: at("2026-02-01"), price: 4990)
        var upgraded = basic
        upgraded.isUpgraded = true
        upgraded.signedDate = at("2026-01-15")
        let pro = sub.transaction("10001", purchased: at("2026-01-15"), expires: at("2026-02-15"), price: 9990,
                                  product: "pro.monthly")
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: basic,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            apple.notification("DID_CHANGE_RENEWAL_PREF", "UPGRADE", signed: at("2026-01-15"), transaction: pro,
                               renewal: sub.renewal(signed: at("2026-01-15"), autoRenewProduct: "pro.monthly")),
            apple.notification("DID_RENEW", signed: at("2026-01-15", 0, 1), transaction: upgraded),
        ])
        let before = try #require(ledger.subscription("10000", at: at("2026-01-10")))
        #expect(before.productId == "basic.monthly")
        #expect(before.price == 4990)

        let after = try #require(ledger.subscription("10000", at: at("2026-01-20")))
        #expect(after.status == .active)
        #expect(after.productId == "pro.monthly")
        #expect(after.price == 9990)
        #expect(after.lastTransactionId == "10001")
        #expect(after.expiresAt == at("2026-02-15"))
        #expect(after.revocation == nil)
        #expect(after.autoRenewProductId == "pro.monthly")
        #expect(after.paidPeriods == 2)
    }

    @Test("a downgrade changes the renewal product now and the product at the next renewal")
    func downgrade() throws {
        var apple = Notifier()
        let sub = Subscriber("11000")
        let pro = sub.transaction("11000", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let basic = sub.transaction("11001", purchased: at("2026-02-01"), expires: at("2026-03-01"), price: 4990,
                                    product: "basic.monthly")
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: pro,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            apple.notification("DID_CHANGE_RENEWAL_PREF", "DOWNGRADE", signed: at("2026-01-15"), transaction: pro,
                               renewal: sub.renewal(signed: at("2026-01-15"), autoRenewProduct: "basic.monthly")),
            apple.notification("DID_RENEW", signed: at("2026-02-01"), transaction: basic,
                               renewal: sub.renewal(signed: at("2026-02-01"), autoRenewProduct: "basic.monthly")),
        ])
        let pending = try #require(ledger.subscription("11000", at: at("2026-01-20")))
        #expect(pending.productId == "pro.monthly")
        #expect(pending.autoRenewProductId == "basic.monthly")
        #expect(pending.price == 9990)
        let renewed = try #require(ledger.subscription("11000", at: at("2026-02-02")))
        #expect(renewed.productId == "basic.monthly")
        #expect(renewed.price == 4990)
    }

    @Test("a monthly-billed commitment shows its plan and where it stands")
    func commitment() throws {
        var apple = Notifier()
        var sub = Subscriber("12000")
        sub.productId = "pro.yearly"
        sub.price = 10990
        let commitmentEnd = at("2027-01-01")
        func period(_ number: Int, _ month: String, _ next: String) -> TransactionFacts {
            var t = sub.transaction("1200\(number)", purchased: at(month), expires: at(next))
            t.billingPlanType = "MONTHLY"
            t.commitment = .init(billingPeriodNumber: number, totalBillingPeriods: 12,
                                 commitmentExpiresDate: commitmentEnd, commitmentPrice: 131_880)
            return t
        }
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: period(1, "2026-01-01", "2026-02-01")),
            apple.notification("DID_RENEW", signed: at("2026-02-01"), transaction: period(2, "2026-02-01", "2026-03-01")),
            apple.notification("DID_RENEW", signed: at("2026-03-01"), transaction: period(3, "2026-03-01", "2026-04-01")),
        ])
        let state = try #require(ledger.subscription("12000", at: at("2026-03-10")))
        #expect(state.billingPlan == .monthlyCommitment)
        #expect(state.commitment == CommitmentState(billingPeriodNumber: 3, totalBillingPeriods: 12,
                                                    expiresAt: commitmentEnd, price: 131_880))
        #expect(state.price == 10990)
        #expect(state.paidPeriods == 3)
    }

    @Test("a family-shared subscription has its own state and a family revoke is not a refund, named so or (older payloads) not",
          arguments: ["FAMILY_REVOKE", nil])
    func familySharedRevoked(revocationType: String?) throws {
        var apple = Notifier()
        var sub = Subscriber("13000")
        sub.ownership = "FAMILY_SHARED"
        let shared = sub.transaction("13000", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        var revoked = shared
        revoked.revocationDate = at("2026-01-12")
        revoked.revocationType = revocationType
        revoked.signedDate = at("2026-01-12")
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: shared,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            apple.notification("REVOKE", signed: at("2026-01-12"), transaction: revoked),
        ])
        let sharing = try #require(ledger.subscription("13000", at: at("2026-01-05")))
        #expect(sharing.ownership == .familyShared)
        #expect(sharing.status == .active)
        #expect(sharing.entitled)

        let ended = try #require(ledger.subscription("13000", at: at("2026-01-13")))
        #expect(ended.status == .revoked)
        #expect(ended.revocation == .familyRevoke)
        #expect(ended.revokedAt == at("2026-01-12"))
    }

    /// A tester's account token: a Production subscription "16000" bought 2026-01-01 for a
    /// month, and a Sandbox one "16100" bought 2026-02-05.
    static let testerToken = "aaaaaaaa-0000-4000-8000-000000000001"
    static func productionAndSandbox() -> TestLedger {
        var apple = Notifier()
        let production = Subscriber("16000", token: testerToken)
        var sandbox = Subscriber("16100", token: testerToken)
        sandbox.environment = .sandbox
        return TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"),
                               transaction: production.transaction("16000", purchased: at("2026-01-01"), expires: at("2026-02-01"))),
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-02-05"),
                               transaction: sandbox.transaction("16100", purchased: at("2026-02-05"), expires: at("2026-03-05")), environment: .sandbox),
        ])
    }

    @Test("a customer's entitlements are those of the environment the answer names: a tester's Sandbox purchase under the same account token grants no Production access")
    func sandboxGrantsNoProductionEntitlement() throws {
        let ledger = Self.productionAndSandbox()
        let token = Self.testerToken
        let customer = try #require(ledger.customer(token, at: at("2026-02-10")))
        #expect(customer.environment == "Production")
        #expect(customer.entitlements == [])
        #expect(customer.subscriptions.contains { $0.originalTransactionId == "16100" && $0.entitled && $0.environment == "Sandbox" }, "listed, with its environment")
        #expect(ledger.projection.customer(token, asOf: at("2026-02-10"), environment: .sandbox)?.entitlements == ["pro.monthly"])
    }

    @Test("a customer's history in one environment lists only that environment's events, and a customer with nothing there is not found")
    func historyOfOneEnvironment() throws {
        let ledger = Self.productionAndSandbox()
        let token = Self.testerToken
        #expect(ledger.projection.history(token)?.events.map(\.originalTransactionId) == ["16000", "16100"])
        let query = try HistoryQuery(id: token, QueryErrorSpellingTests.Flags(values: ["environment": "sandbox"]))
        let inSandbox = try #require(ledger.projection.history(token, environment: query.environment))
        #expect(inSandbox.events.map(\.originalTransactionId) == ["16100"])
        #expect(inSandbox.events.allSatisfy { $0.environment == "Sandbox" })
        #expect(ledger.projection.history("16000", environment: .sandbox) == inSandbox, "an originalTransactionId names its whole customer")
        #expect(ledger.projection.history(token, environment: .xcode) == nil, "no Xcode event was ever folded")
    }

    @Test("an empty appAccountToken names no customer: buyers who send one are customers of their own")
    func emptyTokenIsNoToken() throws {
        var apple = Notifier()
        var events: [Event] = []
        for id in ["15000", "15001"] {
            var sub = Subscriber(id)
            sub.token = ""
            events.append(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"),
                                             transaction: sub.transaction(id, purchased: at("2026-01-01"), expires: at("2026-02-01"))))
        }
        let ledger = TestLedger(events)
        for id in ["15000", "15001"] {
            let customer = try #require(ledger.customer(id, at: at("2026-01-05")))
            #expect(customer.customerId == id)
            #expect(customer.subscriptions.map(\.originalTransactionId) == [id])
        }
    }

    @Test("one-time purchases are listed with the customer; a non-consumable entitles until refunded")
    func oneTimePurchases() throws {
        var apple = Notifier()
        let token = "5b3f6c2e-1d4a-4c8e-9f00-0a1b2c3d4e5f"
        let consumable = TransactionFacts(
            transactionId: "14000", originalTransactionId: "14000", productId: "coins.100", type: "Consumable",
            purchaseDate: at("2026-01-03"), signedDate: at("2026-01-03"), price: 1990, currency: "EUR",
            ownership: "PURCHASED", appAccountToken: token)
        let lifetime = TransactionFacts(
            transactionId: "14001", originalTransactionId: "14001", productId: "lifetime", type: "Non-Consumable",
            purchaseDate: at("2026-01-04"), signedDate: at("2026-01-04"), price: 49990, currency: "EUR",
            ownership: "PURCHASED", appAccountToken: token)
        var refundedLifetime = lifetime
        refundedLifetime.revocationDate = at("2026-01-20")
        refundedLifetime.revocationType = "REFUND_FULL"
        refundedLifetime.signedDate = at("2026-01-20")
        let ledger = TestLedger([
            apple.notification("ONE_TIME_CHARGE", signed: at("2026-01-03"), transaction: consumable),
            apple.notification("ONE_TIME_CHARGE", signed: at("2026-01-04"), transaction: lifetime),
            apple.notification("REFUND", signed: at("2026-01-20"), transaction: refundedLifetime),
        ])
        let owning = try #require(ledger.customer(token.uppercased(), at: at("2026-01-10")))
        #expect(owning.customerId == token)
        #expect(owning.subscriptions.isEmpty)
        #expect(owning.entitlements == ["lifetime"])
        #expect(owning.purchases.map(\.environment) == ["Production", "Production"], "each says its environment, as subscriptions do")
        #expect(owning.purchases.map { purchase in var bare = purchase; bare.environment = nil; return bare } == [
            PurchaseState(transactionId: "14000", productId: "coins.100", type: "Consumable",
                          purchasedAt: at("2026-01-03"), price: 1990, currency: "EUR", refunded: false),
            PurchaseState(transactionId: "14001", productId: "lifetime", type: "Non-Consumable",
                          purchasedAt: at("2026-01-04"), price: 49990, currency: "EUR", refunded: false),
        ])
        let refunded = try #require(ledger.customer(token, at: at("2026-01-21")))
        #expect(refunded.entitlements == [])
        #expect(refunded.purchases.map(\.refunded) == [false, true])
    }

    @Test("a resubscription after a lapse is active again and counts both paid periods")
    func resubscribe() throws {
        var apple = Notifier()
        let sub = Subscriber("15000")
        let first = sub.transaction("15000", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let again = sub.transaction("15001", purchased: at("2026-03-10"), expires: at("2026-04-10"))
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-01-01"))),
            apple.notification("EXPIRED", "VOLUNTARY", signed: at("2026-02-01"), transaction: first,
                               renewal: sub.renewal(signed: at("2026-02-01"), autoRenew: false, expirationIntent: 1)),
            apple.notification("SUBSCRIBED", "RESUBSCRIBE", signed: at("2026-03-10"), transaction: again,
                               renewal: sub.renewal(signed: at("2026-03-10"))),
        ])
        let lapsed = try #require(ledger.subscription("15000", at: at("2026-02-15")))
        #expect(lapsed.status == .expired)
        #expect(lapsed.expirationReason == .voluntary)
        let back = try #require(ledger.subscription("15000", at: at("2026-03-15")))
        #expect(back.status == .active)
        #expect(back.autoRenew == true)
        #expect(back.expirationReason == nil)
        #expect(back.paidPeriods == 2)
        #expect(back.firstPurchaseAt == at("2026-01-01"))
        #expect(back.lastTransactionId == "15001")
    }

    @Test("entitlements come from the catalog when it lists the product")
    func catalogEntitlements() throws {
        var apple = Notifier()
        let sub = Subscriber("16000")
        let first = sub.transaction("16000", purchased: at("2026-01-01"), expires: at("2026-02-01"))
        let ledger = TestLedger([
            apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: at("2026-01-01"), transaction: first),
        ])
        let catalog = ProductCatalog(products: [.init(productId: "pro.monthly", entitlements: ["pro", "sync"], rank: 2, period: "P1M")])
        #expect(ledger.customer("16000", at: at("2026-01-05"), catalog: catalog)?.entitlements == ["pro", "sync"])
        #expect(ledger.customer("16000", at: at("2026-01-05"))?.entitlements == ["pro.monthly"])
        #expect(ledger.customer("16000", at: at("2026-02-05"), catalog: catalog)?.entitlements == [])
    }
}
