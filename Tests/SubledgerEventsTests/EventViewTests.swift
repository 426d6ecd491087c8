import SubledgerEvents
import Testing

@Suite("EventView reads records in place")
struct EventViewTests {
    /// Calls `body` with a view of `event`'s encoding.
    func withView<R>(of event: Event, _ body: (EventView) throws -> R) throws -> R {
        let bytes = EventCodec.encoded(event)
        return try bytes.withUnsafeBytes { raw in try body(try EventView(raw)) }
    }

    @Test("a realistic renewal's fields read back through the view")
    func renewalFields() throws {
        try withView(of: SampleEvents.renewal) { view in
            #expect(view.type == .renewed)
            #expect(view.version == 1)
            #expect(view.effectiveAt == 1_759_302_518_835)
            #expect(view.evidence == EvidenceRef(position: 48_213_504, length: 7_412))
            #expect(view.notificationType.map { $0 == "DID_RENEW" } == true)
            #expect(view.subtype == nil)
            #expect(view.environment?.string == "Sandbox")
            #expect(view.status == 1)
            let transaction = try #require(view.transaction)
            #expect(transaction.transactionId?.number == 2_000_001_024_998_954)
            #expect(transaction.originalTransactionId?.number == 2_000_001_024_993_299)
            #expect(transaction.subscriptionGroupIdentifier?.number == 21_752_814)
            #expect(transaction.productId?.string == "com.getsession.org.pro_sub")
            #expect(transaction.productId?.number == nil)
            #expect(transaction.purchaseDate == 1_759_302_552_000)
            #expect(transaction.expiresDate == 1_759_302_732_000)
            #expect(transaction.price == 1_990)
            #expect(transaction.currency.map { $0 == "AUD" } == true)
            #expect(transaction.ownership.map { $0 == "PURCHASED" && !($0 == "FAMILY_SHARED") } == true)
            #expect(transaction.revocationDate == nil)
            #expect(transaction.commitment == nil)
            let renewal = try #require(view.renewal)
            #expect(renewal.autoRenewStatus == 1)
            #expect(renewal.originalTransactionId == transaction.originalTransactionId!)
            #expect(renewal.recentSubscriptionStartDate == 1_759_301_832_000)
            #expect(view.renewalExtensionSummary == nil)
            #expect(view.externalPurchaseToken == nil)
        }
    }

    @Test("only canonical decimals below 2^63 come out as numbers; everything else stays text")
    func identifiersAsNumbers() throws {
        let cases: [(String, UInt64?)] = [
            ("2000000123456789", 2_000_000_123_456_789), ("0", 0), ("9223372036854775807", 9_223_372_036_854_775_807),
            ("0042", nil), ("00", nil), ("9223372036854775808", nil), ("12a", nil), ("", nil), ("-5", nil),
        ]
        for (id, number) in cases {
            let event = Event(
                type: .transactionBackfilled, effectiveAt: 0, evidence: EvidenceRef(position: 0, length: 0),
                transaction: TransactionFacts(transactionId: id))
            try withView(of: event) { view in
                let ref = try #require(view.transaction?.transactionId)
                #expect(ref.number == number, "\(id.debugDescription)")
                #expect(ref.string == id)
                #expect(ref == id)
                #expect(!(ref == id + "0"))
                #expect(ref.withUTF8 { Array($0) } == Array(id.utf8))
            }
        }
    }

    @Test("UUIDs come out as 128-bit values and in their original case")
    func uuids() throws {
        let lower = "1a7cdc3d-9360-49c3-ae37-0423e4c6e7c7"
        for (text, isUUID) in [
            (lower, true), (lower.uppercased(), true), ("1A7cdc3d-9360-49c3-ae37-0423e4c6e7c7", false),
        ] {
            let event = Event(
                type: .test, effectiveAt: 0, evidence: EvidenceRef(position: 0, length: 0), notificationUUID: text)
            try withView(of: event) { view in
                let ref = try #require(view.notificationUUID)
                #expect(ref.uuid == (isUUID ? 0x1a7c_dc3d_9360_49c3_ae37_0423_e4c6_e7c7 : nil))
                #expect(ref.string == text)
                #expect(ref == text)
                #expect((ref == lower.uppercased()) == (text == lower.uppercased()))
            }
        }
    }

    @Test("fields after long strings, past the offset cache, read back correctly")
    func fieldsAfterLongStrings() throws {
        let long = String(repeating: "é", count: 400)
        let event = Event(
            type: .renewed, effectiveAt: 5, evidence: EvidenceRef(position: 1, length: 2),
            transaction: TransactionFacts(
                transactionId: "1", productId: long, subscriptionGroupIdentifier: long, purchaseDate: 7,
                offerIdentifier: long, isUpgraded: true, quantity: 3, commitment: .init(billingPeriodNumber: 2)),
            renewal: RenewalFacts(productId: long, autoRenewProductId: long, autoRenewStatus: 0, renewalDate: -9))
        try withView(of: event) { view in
            let transaction = try #require(view.transaction)
            #expect(transaction.purchaseDate == 7)
            #expect(transaction.offerIdentifier?.string == long)
            #expect(transaction.isUpgraded == true)
            #expect(transaction.quantity == 3)
            #expect(transaction.commitment == .init(billingPeriodNumber: 2))
            #expect(view.renewal?.autoRenewStatus == 0)
            #expect(view.renewal?.renewalDate == -9)
        }
    }

    @Test("materialising a view gives what the view reads, field by field", arguments: [21, 22] as [UInt64])
    func viewAgreesWithEvent(seed: UInt64) throws {
        var events = RandomEvents(seed: seed)
        for _ in 0..<500 {
            let event = events.event()
            try withView(of: event) { view in
                #expect(Event(view) == event)
                #expect(view.transaction?.transactionId?.string == event.transaction?.transactionId)
                #expect(view.transaction?.expiresDate == event.transaction?.expiresDate)
                #expect(view.renewal?.gracePeriodExpiresDate == event.renewal?.gracePeriodExpiresDate)
                #expect(
                    view.renewal?.commitment?.commitmentRenewalPrice
                        == event.renewal?.commitment?.commitmentRenewalPrice)
                #expect(view.externalPurchaseToken?.tokenCreationDate == event.externalPurchaseToken?.tokenCreationDate)
            }
        }
    }

    /// The evidence reference read alone, and by a whole view.
    static func evidence(_ bytes: [UInt8]) throws -> (alone: EvidenceRef, whole: EvidenceRef) {
        try bytes.withUnsafeBytes { raw in
            let alone = try EventView.evidence(of: raw)
            return (alone, try EventView(raw).evidence)
        }
    }

    @Test("the evidence reference alone reads as the whole view does, and a record cut before it is an error", arguments: [23, 24] as [UInt64])
    func evidenceAlone(seed: UInt64) throws {
        var events = RandomEvents(seed: seed)
        for _ in 0..<500 {
            let event = events.event()
            let bytes = EventCodec.encoded(event)
            let (alone, whole) = try Self.evidence(bytes)
            #expect(alone == whole && alone == event.evidence)
            #expect(throws: EventDecodingError.self) { try Self.evidence(Array(bytes.prefix(4))) }
        }
    }

    @Test("two refs compare by text whatever form each was stored in")
    func refsCompareByText() throws {
        let event = Event(
            type: .renewed, effectiveAt: 0, evidence: EvidenceRef(position: 0, length: 0),
            notificationType: "USD",
            transaction: TransactionFacts(
                transactionId: "840", originalTransactionId: "840", productId: "USD", currency: "USD"),
            renewal: RenewalFacts(originalTransactionId: "0840", currency: "USD"))
        try withView(of: event) { view in
            let transaction = try #require(view.transaction)
            let renewal = try #require(view.renewal)
            #expect(transaction.transactionId == transaction.originalTransactionId!)
            #expect(!(transaction.transactionId! == renewal.originalTransactionId!))
            #expect(transaction.currency! == transaction.productId!)
            #expect(transaction.currency! == renewal.currency!)
            #expect(transaction.currency! == view.notificationType!)
        }
    }
}
