import SubledgerAppStore
import SubledgerEvents
import SubledgerJWS
import SubledgerTestSupport
import Testing

/// Signed notifications built with SubledgerTestSupport, for the notification types the real
/// corpus lacks, taken through verification, decoding and mapping as ingestion would.
@Suite("Signed notifications of every type")
struct SignedNotificationTests {
    static let y2025: Int64 = 1_735_689_600_000  // 2025-01-01T00:00:00Z
    static let y2028: Int64 = 1_830_297_600_000  // 2028-01-01T00:00:00Z
    static let signedDate: Int64 = 1_770_000_000_000  // 2026-02-02

    static let transactionCommitment: TransactionCommitmentInfo = {
        var info = TransactionCommitmentInfo()
        info.billingPeriodNumber = 2
        info.totalBillingPeriods = 12
        info.commitmentExpiresDate = 1_798_761_600_000
        info.commitmentPrice = 95_880
        return info
    }()

    static let renewalCommitment: RenewalCommitmentInfo = {
        var info = RenewalCommitmentInfo()
        info.commitmentAutoRenewProductId = "com.example.subledger.yearly.monthly"
        info.commitmentAutoRenewStatus = .on
        info.commitmentRenewalBillingPlanType = .monthly
        info.commitmentRenewalDate = 1_798_761_600_000
        info.commitmentRenewalPrice = 99_880
        return info
    }()

    /// A payload decoded from a compact JWS after the JWS verified at `instant`.
    private func verifiedPayload(
        _ jws: String, _ verifier: SignedDataVerifier, at instant: (CompactJWS) throws -> Int64
    )
        throws -> [UInt8]
    {
        let compact = try CompactJWS(Array(jws.utf8))
        try verifier.verify(compact, at: try instant(compact))
        return compact.payload
    }

    /// The notification a rule stands for, in the shape Apple sends that type.
    private func signedNotification(for rule: NotificationRule, fixtures: AppStoreFixtures) -> SignedNotification {
        let type = NotificationType(rawValue: rule.notificationType)
        let subtype: NotificationSubtype? =
            switch rule.subtype {
            case .none: nil
            case .exactly(let raw): NotificationSubtype(rawValue: raw)
            case .any: NotificationSubtype(rawValue: "SUBTYPE_APPLE_ADDS_LATER")
            }
        var transaction = fixtures.transaction(signedDate: Self.signedDate)
        var renewal = fixtures.renewalInfo(for: transaction)
        if rule.onlyMonthlyCommitmentRenewal {
            transaction.productId = "com.example.subledger.yearly.monthly"
            transaction.billingPlanType = .monthly
            transaction.commitmentInfo = Self.transactionCommitment
            renewal.renewalBillingPlanType = .monthly
            renewal.commitmentInfo = Self.renewalCommitment
        }
        var notification = fixtures.payload(type, subtype: subtype, signedDate: Self.signedDate)
        switch (type, subtype) {
        case (.test, _):
            notification.data = fixtures.data(transaction: nil, renewal: nil)
        case (.renewalExtension, .summary):
            notification.summary = fixtures.summary()
        case (.externalPurchaseToken, _):
            notification.externalPurchaseToken = fixtures.externalPurchaseToken()
        case (.rescindConsent, _):
            notification.appData = fixtures.appData()
        case (.oneTimeCharge, _):
            let consumable = fixtures.transaction(
                productId: "com.example.subledger.coins", type: .consumable, signedDate: Self.signedDate)
            notification.data = fixtures.data(transaction: consumable, renewal: nil)
        case (.consumptionRequest, _):
            notification.data = fixtures.data(transaction: transaction, renewal: renewal, status: .active)
            notification.data?.consumptionRequestReason = .unintendedPurchase
        default:
            notification.data = fixtures.data(transaction: transaction, renewal: renewal, status: .active)
        }
        return fixtures.sign(notification)
    }

    @Test(
        "each row of the notification table, signed, verifies outer and nested at signedDate and maps to its event",
        arguments: EventType.notificationRules, ["Sandbox", "Production"])
    func everyRule(rule: NotificationRule, environment: String) throws {
        let pki = try TestPKI(validity: Self.y2025...Self.y2028)
        let fixtures = AppStoreFixtures(pki: pki, environment: .init(rawValue: environment))
        let verifier = SignedDataVerifier(trustedRoots: [pki.root])
        let signed = signedNotification(for: rule, fixtures: fixtures)

        let body = try ResponseBodyV2.decode(signed.webhookBody)
        let outerJWS = try #require(body.signedPayload)
        let notification = try NotificationPayload.decode(
            try verifiedPayload(outerJWS, verifier) { try NotificationPayload.decode($0.payload).signedDate ?? 0 })
        #expect(notification == signed.payload)
        #expect(notification.signedDate == Self.signedDate)
        let transaction = try notification.data?.signedTransactionInfo.map { jws in
            try TransactionPayload.decode(
                try verifiedPayload(jws, verifier) { try TransactionPayload.decode($0.payload).signedDate ?? 0 })
        }
        let renewal = try notification.data?.signedRenewalInfo.map { jws in
            try RenewalInfoPayload.decode(
                try verifiedPayload(jws, verifier) { try RenewalInfoPayload.decode($0.payload).signedDate ?? 0 })
        }

        let event = EventMapping.event(
            notification: notification, transaction: transaction, renewal: renewal,
            evidence: EvidenceRef(position: 0, length: UInt32(signed.webhookBody.count)))
        #expect(event.type == rule.eventType)
        #expect(event.notificationType == rule.notificationType)
        #expect(event.effectiveAt == Self.signedDate)
        #expect(event.environment?.rawValue == environment)
        #expect(event.notificationUUID == notification.notificationUUID)
        if rule.onlyMonthlyCommitmentRenewal {
            #expect(event.transaction?.billingPlanType == "MONTHLY")
            #expect(
                event.transaction?.commitment
                    == TransactionFacts.Commitment(
                        billingPeriodNumber: 2, totalBillingPeriods: 12, commitmentExpiresDate: 1_798_761_600_000,
                        commitmentPrice: 95_880))
            #expect(event.renewal?.renewalBillingPlanType == "MONTHLY")
            #expect(
                event.renewal?.commitment
                    == RenewalFacts.CommitmentRenewal(
                        commitmentAutoRenewProductId: "com.example.subledger.yearly.monthly",
                        commitmentAutoRenewStatus: 1, commitmentRenewalBillingPlanType: "MONTHLY",
                        commitmentRenewalDate: 1_798_761_600_000, commitmentRenewalPrice: 99_880))
        } else {
            #expect(event.transaction?.commitment == nil && event.renewal?.commitment == nil)
        }
        #expect(try codecRoundTrip(event) == event)
    }

    @Test("the fixtures sign Apple-shaped payloads for the chosen environment and bundle")
    func fixtureDefaults() throws {
        let pki = try TestPKI(validity: Self.y2025...Self.y2028)
        for environment in [AppStoreEnvironment.sandbox, .production] {
            let fixtures = AppStoreFixtures(pki: pki, environment: environment)
            let transaction = fixtures.transaction(transactionId: "2000000000000042", purchaseDate: Self.signedDate)
            let signed = fixtures.notification(
                .subscribed, subtype: .initialBuy, transaction: transaction,
                renewal: fixtures.renewalInfo(for: transaction))

            let text = String(decoding: signed.webhookBody, as: UTF8.self)
            #expect(text == #"{"signedPayload":"\#(signed.signedPayload)"}"#)
            let data = try #require(signed.payload.data)
            #expect(data.environment == environment)
            #expect(data.bundleId == "com.example.subledger")
            #expect(signed.payload.version == "2.0")
            #expect(signed.payload.signedDate == Self.signedDate)
            let uuid = try #require(signed.payload.notificationUUID)
            #expect(uuid.count == 36 && uuid == uuid.lowercased())

            let nested = try TransactionPayload.decode(
                try CompactJWS(Array(try #require(data.signedTransactionInfo).utf8)).payload)
            #expect(nested == transaction)
            #expect(nested.environment == environment)
            #expect(nested.bundleId == "com.example.subledger")
            #expect(nested.originalTransactionId == "2000000000000042")
            #expect(nested.expiresDate == Self.signedDate + 30 * 86_400_000)
        }
    }

    @Test("a nested transaction signed by another hierarchy fails verification with chain_untrusted")
    func nestedForgery() throws {
        let pki = try TestPKI(validity: Self.y2025...Self.y2028)
        let forger = AppStoreFixtures(pki: try TestPKI(validity: Self.y2025...Self.y2028))
        let fixtures = AppStoreFixtures(pki: pki)
        let transaction = fixtures.transaction(signedDate: Self.signedDate)
        var data = fixtures.data(transaction: transaction, renewal: fixtures.renewalInfo(for: transaction))
        data.signedTransactionInfo = forger.signedTransactionInfo(transaction)
        var notification = fixtures.payload(.didRenew, signedDate: Self.signedDate)
        notification.data = data
        let signed = fixtures.sign(notification)

        let verifier = SignedDataVerifier(trustedRoots: [pki.root])
        try verifier.verify(try CompactJWS(Array(signed.signedPayload.utf8)), at: Self.signedDate)
        try verifier.verify(try CompactJWS(Array(try #require(data.signedRenewalInfo).utf8)), at: Self.signedDate)
        let nested = try CompactJWS(Array(try #require(data.signedTransactionInfo).utf8))
        let error = #expect(throws: VerificationError.self) { try verifier.verify(nested, at: Self.signedDate) }
        #expect(error?.reason == .chainUntrusted)
    }
}
