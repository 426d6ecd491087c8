import Foundation
import SubledgerAppStore
import SubledgerEvents
import SubledgerJWS
import Testing

/// Encodes `event` with the log's codec and decodes it back.
func codecRoundTrip(_ event: Event) throws -> Event {
    var buffer: [UInt8] = []
    EventCodec.encode(event, into: &buffer)
    return try buffer.withUnsafeBytes { bytes in try EventCodec.decode(bytes) }
}

@Suite("Mapping payloads to events")
struct EventMappingTests {
    let evidence = EvidenceRef(position: 4096, length: 7321)

    @Test("every fact of a notification, its transaction and its renewal info lands in the event")
    func everyFactIsCopied() throws {
        let event = EventMapping.event(
            notification: FullPayloads.notification, transaction: FullPayloads.transaction,
            renewal: FullPayloads.renewalInfo, evidence: evidence)
        // Written from the values in FullPayloads, field by field.
        let expected = Event(
            type: .commitmentPeriodBilled,
            effectiveAt: 1_767_225_602_000,
            evidence: evidence,
            notificationUUID: "002e14d5-51f5-4503-b5a8-c3a1af68eb20",
            notificationType: "DID_RENEW",
            subtype: "BILLING_RECOVERY",
            environment: .production,
            status: 4,
            consumptionRequestReason: "UNINTENDED_PURCHASE",
            transaction: TransactionFacts(
                transactionId: "2000000123456789", originalTransactionId: "2000000000000001",
                webOrderLineItemId: "2000000098765432", productId: "com.example.pro.yearly.monthly",
                subscriptionGroupIdentifier: "21000001", type: "Auto-Renewable Subscription",
                purchaseDate: 1_767_225_600_000, originalPurchaseDate: 1_764_547_200_000,
                expiresDate: 1_769_904_000_000, signedDate: 1_767_225_601_234, price: 4990, currency: "EUR",
                storefront: "FRA", offerType: 4, offerDiscountType: "PAY_AS_YOU_GO", offerIdentifier: "winback-50",
                offerPeriod: "P3M", ownership: "PURCHASED", isUpgraded: false, revocationDate: 1_768_000_000_000,
                revocationReason: 1, revocationType: "REFUND_PRORATED", revocationPercentage: 50_000,
                appAccountToken: "7e3fb20b-4cdb-47cc-936d-99d65f608138", transactionReason: "RENEWAL", quantity: 1,
                billingPlanType: "MONTHLY",
                commitment: .init(
                    billingPeriodNumber: 3, totalBillingPeriods: 12, commitmentExpiresDate: 1_793_491_200_000,
                    commitmentPrice: 59_880)),
            renewal: RenewalFacts(
                originalTransactionId: "2000000000000001", productId: "com.example.pro.yearly.monthly",
                autoRenewProductId: "com.example.pro.yearly.monthly", autoRenewStatus: 1, expirationIntent: 3,
                isInBillingRetryPeriod: true, gracePeriodExpiresDate: 1_770_000_000_000, priceIncreaseStatus: 0,
                renewalPrice: 4990, currency: "EUR", offerType: 2, offerIdentifier: "promo-1",
                offerDiscountType: "FREE_TRIAL", signedDate: 1_767_225_601_234, renewalDate: 1_769_904_000_000,
                recentSubscriptionStartDate: 1_764_547_200_000, renewalBillingPlanType: "BILLED_UPFRONT",
                commitment: .init(
                    commitmentAutoRenewProductId: "com.example.pro.yearly", commitmentAutoRenewStatus: 0,
                    commitmentRenewalBillingPlanType: "MONTHLY", commitmentRenewalDate: 1_793_491_200_000,
                    commitmentRenewalPrice: 59_880)),
            renewalExtensionSummary: RenewalExtensionSummary(
                requestIdentifier: "efb27071-45a4-4aca-9854-2a1e9146f265", productId: "com.example.product",
                succeededCount: 3, failedCount: 5),
            externalPurchaseToken: ExternalPurchaseTokenFacts(
                externalPurchaseId: "b2158121-7af9-49d4-9561-1f588205523e", tokenCreationDate: 1_698_148_950_000,
                appAppleId: 55555, bundleId: "com.example"))
        #expect(event == expected)
        #expect(try codecRoundTrip(event) == event)
    }

    @Test("a bare transaction becomes a transactionBackfilled event at its own signedDate, in its environment")
    func backfill() throws {
        let transaction = FullPayloads.transaction
        let event = EventMapping.event(backfilled: transaction, evidence: evidence)
        #expect(event.type == .transactionBackfilled)
        #expect(event.effectiveAt == 1_767_225_601_234)
        #expect(event.environment == .production)
        #expect(event.evidence == evidence)
        #expect(event.transaction?.transactionId == "2000000123456789")
        #expect(event.transaction?.commitment?.billingPeriodNumber == 3)
        #expect(event.notificationUUID == nil && event.notificationType == nil && event.subtype == nil)
        #expect(event.status == nil && event.renewal == nil)
        #expect(try codecRoundTrip(event) == event)
    }

    @Test(
        "only a MONTHLY transaction that carries commitmentInfo makes a DID_RENEW a commitment period",
        arguments: [
            (BillingPlanType.monthly, true, EventType.commitmentPeriodBilled),
            (.monthly, false, .renewed),
            (.billedUpfront, true, .renewed),
            (BillingPlanType(rawValue: "QUARTERLY"), true, .renewed),
        ])
    func commitmentRenewal(plan: BillingPlanType, hasCommitmentInfo: Bool, expected: EventType) {
        var notification = NotificationPayload()
        notification.notificationType = .didRenew
        notification.signedDate = 1
        var transaction = TransactionPayload()
        transaction.billingPlanType = plan
        transaction.commitmentInfo = hasCommitmentInfo ? TransactionCommitmentInfo() : nil
        let event = EventMapping.event(
            notification: notification, transaction: transaction, renewal: nil, evidence: evidence)
        #expect(event.type == expected)
    }

    @Test(
        "without the notification's signedDate, effectiveAt is the transaction's, else the renewal's, else 0",
        arguments: [
            (Int64?(300), Int64?(200), Int64?(100), Int64(300)),
            (nil, 200, 100, 200),
            (nil, nil, 100, 100),
            (nil, nil, nil, 0),
            (300, nil, nil, 300),
        ])
    func effectiveAtFallback(notificationDate: Int64?, transactionDate: Int64?, renewalDate: Int64?, expected: Int64) {
        var notification = NotificationPayload()
        notification.notificationType = .didRenew
        notification.signedDate = notificationDate
        var transaction = TransactionPayload()
        transaction.signedDate = transactionDate
        var renewal = RenewalInfoPayload()
        renewal.signedDate = renewalDate
        let event = EventMapping.event(
            notification: notification, transaction: transaction, renewal: renewal, evidence: evidence)
        #expect(event.effectiveAt == expected)
        #expect(
            EventMapping.effectiveAt(notification: notification, transaction: transaction, renewal: renewal) == expected
        )
    }

    @Test("a renewal-extension summary carries its counts and the summary's environment")
    func summaryNotification() throws {
        var notification = NotificationPayload()
        notification.notificationType = .renewalExtension
        notification.subtype = .summary
        notification.signedDate = 1_698_148_900_000
        notification.summary = FullPayloads.summary
        let event = EventMapping.event(notification: notification, transaction: nil, renewal: nil, evidence: evidence)
        #expect(event.type == .renewalExtensionSummary)
        #expect(event.environment == .localTesting)
        #expect(
            event.renewalExtensionSummary
                == RenewalExtensionSummary(
                    requestIdentifier: "efb27071-45a4-4aca-9854-2a1e9146f265", productId: "com.example.product",
                    succeededCount: 3, failedCount: 5))
        #expect(event.transaction == nil && event.renewal == nil)
        #expect(try codecRoundTrip(event) == event)
    }

    @Test(
        "an external purchase token is a sandbox token when its id starts with SANDBOX, else a production one",
        arguments: [("SANDBOX_b2158121-7af9-49d4-9561-1f588205523e", "Sandbox"), ("b2158121-7af9", "Production")])
    func externalPurchaseTokenEnvironment(externalPurchaseId: String, expected: String) throws {
        var notification = NotificationPayload()
        notification.notificationType = .externalPurchaseToken
        notification.subtype = .unreported
        notification.signedDate = 1_698_148_900_000
        var token = FullPayloads.externalPurchaseToken
        token.externalPurchaseId = externalPurchaseId
        notification.externalPurchaseToken = token
        let event = EventMapping.event(notification: notification, transaction: nil, renewal: nil, evidence: evidence)
        #expect(event.type == .externalPurchaseToken)
        #expect(event.environment?.rawValue == expected)
        #expect(event.externalPurchaseToken?.externalPurchaseId == externalPurchaseId)
        #expect(event.externalPurchaseToken?.tokenCreationDate == 1_698_148_950_000)
        #expect(try codecRoundTrip(event) == event)
    }

    @Test("a consent-rescinded notification takes its environment from appData")
    func rescindConsent() {
        var notification = NotificationPayload()
        notification.notificationType = .rescindConsent
        notification.appData = FullPayloads.appData
        let event = EventMapping.event(notification: notification, transaction: nil, renewal: nil, evidence: evidence)
        #expect(event.type == .consentRescinded)
        #expect(event.environment == .sandbox)
    }

    @Test("an unknown notification type is kept as unrecognizedNotification with its raw type and subtype")
    func unknownType() throws {
        var notification = NotificationPayload()
        notification.notificationType = NotificationType(rawValue: "SOMETHING_NEW")
        notification.subtype = NotificationSubtype(rawValue: "BRAND_NEW")
        notification.signedDate = 5
        var data = NotificationData()
        data.environment = AppStoreEnvironment(rawValue: "Staging")
        data.status = SubscriptionStatus(rawValue: 9)
        notification.data = data
        let event = EventMapping.event(notification: notification, transaction: nil, renewal: nil, evidence: evidence)
        #expect(event.type == .unrecognizedNotification)
        #expect(event.notificationType == "SOMETHING_NEW")
        #expect(event.subtype == "BRAND_NEW")
        #expect(event.environment?.rawValue == "Staging")
        #expect(event.status == 9)
        #expect(try codecRoundTrip(event) == event)
    }
}

@Suite(
    "Mapping real Apple-signed notifications",
    .enabled(if: Corpus.isAvailable, "shared/conformance corpus not found next to the repository"))
struct CorpusEventMappingTests {
    /// The event each notification of the corpus stands for, from the catalog pages (not from the
    /// classification table under test).
    static let expectedTypes: [String: EventType] = [
        "CONSUMPTION_REQUEST": .consumptionRequested,
        "DID_CHANGE_RENEWAL_PREF": .renewalPreferenceChanged,
        "DID_CHANGE_RENEWAL_PREF/DOWNGRADE": .renewalPreferenceChanged,
        "DID_CHANGE_RENEWAL_PREF/UPGRADE": .renewalPreferenceChanged,
        "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED": .renewalStatusChanged,
        "DID_RENEW": .renewed,
        "EXPIRED/VOLUNTARY": .expired,
        "ONE_TIME_CHARGE": .oneTimePurchase,
        "REFUND": .refunded,
        "SUBSCRIBED/INITIAL_BUY": .subscriptionStarted,
        "SUBSCRIBED/RESUBSCRIBE": .resubscribed,
        "TEST": .test,
    ]

    private struct Row {
        var file: String
        var environment: String
        var notificationType: String
        var subtype: String?
        var productId: String?
    }

    /// The notification rows of `apple-bulk/MANIFEST.tsv`.
    private func manifestNotifications() throws -> [Row] {
        let directory = try #require(Corpus.directory).appendingPathComponent("apple-bulk")
        let manifest = try String(contentsOf: directory.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        return manifest.split(separator: "\n").dropFirst().compactMap { line in
            let columns = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns.count >= 9, columns[1] == "notification" else { return nil }
            return Row(
                file: directory.appendingPathComponent(columns[0]).path, environment: columns[3],
                notificationType: columns[4], subtype: columns[5].isEmpty ? nil : columns[5],
                productId: columns[8].isEmpty ? nil : columns[8])
        }
    }

    private func payload(ofJWS text: String) throws -> [UInt8] {
        try CompactJWS(Array(text.utf8)).payload
    }

    @Test("every corpus notification maps to its event with the payloads' facts, and survives the codec")
    func everyNotification() throws {
        let rows = try manifestNotifications()
        for (index, row) in rows.enumerated() {
            let name = URL(fileURLWithPath: row.file).lastPathComponent
            let jws = try Corpus.compactJWS(at: URL(fileURLWithPath: row.file))
            let notification = try NotificationPayload.decode(try payload(ofJWS: jws))
            let transaction = try notification.data?.signedTransactionInfo.map {
                try TransactionPayload.decode(try payload(ofJWS: $0))
            }
            let renewal = try notification.data?.signedRenewalInfo.map {
                try RenewalInfoPayload.decode(try payload(ofJWS: $0))
            }
            let evidence = EvidenceRef(position: UInt64(index) * 10_000, length: UInt32(jws.utf8.count))
            let event = EventMapping.event(
                notification: notification, transaction: transaction, renewal: renewal, evidence: evidence)

            let key = row.subtype.map { row.notificationType + "/" + $0 } ?? row.notificationType
            #expect(event.type == Self.expectedTypes[key], "\(name)")
            #expect(
                event.type
                    == EventType.classify(
                        notificationType: row.notificationType, subtype: row.subtype,
                        isMonthlyCommitmentRenewal: false), "\(name)")
            #expect(event.notificationType == row.notificationType, "\(name)")
            #expect(event.subtype == row.subtype, "\(name)")
            #expect(event.notificationUUID == notification.notificationUUID && event.notificationUUID != nil, "\(name)")
            #expect(event.environment?.rawValue == row.environment, "\(name)")
            #expect(event.evidence == evidence, "\(name)")
            #expect(event.status == notification.data?.status?.rawValue, "\(name)")
            #expect(
                event.consumptionRequestReason == notification.data?.consumptionRequestReason?.rawValue, "\(name)")
            #expect(event.effectiveAt == (notification.signedDate ?? transaction?.signedDate), "\(name)")

            if let transaction {
                let facts = try #require(event.transaction, "\(name)")
                #expect(facts.transactionId == transaction.transactionId && facts.transactionId != nil, "\(name)")
                #expect(facts.originalTransactionId == transaction.originalTransactionId, "\(name)")
                #expect(facts.productId == row.productId, "\(name)")
                #expect(facts.purchaseDate == transaction.purchaseDate, "\(name)")
                #expect(facts.expiresDate == transaction.expiresDate, "\(name)")
                #expect(facts.signedDate == transaction.signedDate, "\(name)")
                #expect(facts.price == transaction.price, "\(name)")
                #expect(facts.currency == transaction.currency, "\(name)")
                #expect(facts.type == transaction.type?.rawValue, "\(name)")
                #expect(facts.ownership == transaction.inAppOwnershipType?.rawValue, "\(name)")
                #expect(facts.revocationDate == transaction.revocationDate, "\(name)")
            } else {
                #expect(event.transaction == nil, "\(name)")
            }
            if let renewal {
                let facts = try #require(event.renewal, "\(name)")
                #expect(facts.originalTransactionId == renewal.originalTransactionId, "\(name)")
                #expect(facts.autoRenewStatus == renewal.autoRenewStatus?.rawValue, "\(name)")
                #expect(facts.autoRenewProductId == renewal.autoRenewProductId, "\(name)")
                #expect(facts.expirationIntent == renewal.expirationIntent?.rawValue, "\(name)")
                #expect(facts.renewalDate == renewal.renewalDate, "\(name)")
                #expect(facts.signedDate == renewal.signedDate, "\(name)")
            } else {
                #expect(event.renewal == nil, "\(name)")
            }
            #expect(try codecRoundTrip(event) == event, "\(name)")
        }
        #expect(rows.count > 100, "only \(rows.count) notifications in the manifest")
    }

    @Test("the early-2022 notification without signedDate takes its nested transaction's signedDate")
    func notificationWithoutSignedDate() throws {
        let directory = try #require(Corpus.directory).appendingPathComponent("apple-bulk")
        let jws = try Corpus.compactJWS(
            at: directory.appendingPathComponent("notification-DID_RENEW-none-469bf30e.jws"))
        let notification = try NotificationPayload.decode(try payload(ofJWS: jws))
        #expect(notification.signedDate == nil)
        let data = try #require(notification.data)
        let transaction = try TransactionPayload.decode(try payload(ofJWS: try #require(data.signedTransactionInfo)))
        let renewal = try RenewalInfoPayload.decode(try payload(ofJWS: try #require(data.signedRenewalInfo)))
        let event = EventMapping.event(
            notification: notification, transaction: transaction, renewal: renewal,
            evidence: EvidenceRef(position: 0, length: UInt32(jws.utf8.count)))
        // 2022-03-04T09:43:28.254Z, the transaction's signedDate in the manifest; the renewal
        // info was signed 26 ms earlier.
        #expect(event.effectiveAt == 1_646_387_008_254)
        #expect(event.type == .renewed)
        #expect(try codecRoundTrip(event) == event)
    }

    @Test("every bare corpus transaction maps to a transactionBackfilled event at its signedDate")
    func everyBareTransaction() throws {
        var mapped = 0
        for file in try Corpus.jwsFiles() where file.lastPathComponent.hasPrefix("transaction-") {
            let jws = try Corpus.compactJWS(at: file)
            let transaction = try TransactionPayload.decode(try payload(ofJWS: jws))
            let event = EventMapping.event(
                backfilled: transaction, evidence: EvidenceRef(position: 1, length: UInt32(jws.utf8.count)))
            #expect(event.type == .transactionBackfilled)
            #expect(event.effectiveAt == transaction.signedDate && transaction.signedDate != nil)
            #expect(event.environment?.rawValue == transaction.environment?.rawValue)
            #expect(event.transaction?.transactionId == transaction.transactionId)
            #expect(try codecRoundTrip(event) == event, "\(file.lastPathComponent)")
            mapped += 1
        }
        #expect(mapped > 100)
    }
}
