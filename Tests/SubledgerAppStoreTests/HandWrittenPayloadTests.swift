import SubledgerAppStore
import Testing

/// Payloads the corpus lacks, written from Apple's documentation.
@Suite("Payloads written from the documentation")
struct HandWrittenPayloadTests {
    /// A transaction carrying every documented member, including the 2026 commitment fields.
    static let fullTransaction = """
        {"transactionId":"2000000123456789","originalTransactionId":"2000000000000001",
         "previousOriginalTransactionId":"1000000000000001","webOrderLineItemId":"2000000098765432",
         "bundleId":"com.example.app","productId":"com.example.pro.yearly.monthly",
         "subscriptionGroupIdentifier":"21000001","purchaseDate":1767225600000,
         "originalPurchaseDate":1764547200000,"expiresDate":1769904000000,"quantity":1,
         "type":"Auto-Renewable Subscription","appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138",
         "inAppOwnershipType":"PURCHASED","signedDate":1767225601234,"revocationReason":1,
         "revocationDate":1768000000000,"revocationType":"REFUND_PRORATED","revocationPercentage":50000,
         "isUpgraded":false,"offerType":4,"offerIdentifier":"winback-50","offerDiscountType":"PAY_AS_YOU_GO",
         "offerPeriod":"P3M","environment":"Production","storefront":"FRA","storefrontId":"143442",
         "transactionReason":"RENEWAL","price":4990,"currency":"EUR","appTransactionId":"704897469903383919",
         "billingPlanType":"MONTHLY",
         "commitmentInfo":{"billingPeriodNumber":3,"totalBillingPeriods":12,
                           "commitmentExpiresDate":1793491200000,"commitmentPrice":59880},
         "deviceVerification":"Vhe42e/UYnbRYj4B97C+7x6qVgekvKlL","deviceVerificationNonce":"b5f0a1f2-2a65-4b2a-8d2c-1f1e0c3a9b7d"}
        """

    /// Renewal information carrying every documented member, including the commitment fields.
    static let fullRenewalInfo = """
        {"expirationIntent":3,"originalTransactionId":"2000000000000001",
         "autoRenewProductId":"com.example.pro.yearly.monthly","productId":"com.example.pro.yearly.monthly",
         "autoRenewStatus":1,"isInBillingRetryPeriod":true,"priceIncreaseStatus":0,
         "gracePeriodExpiresDate":1770000000000,"offerType":2,"offerIdentifier":"promo-1",
         "offerDiscountType":"FREE_TRIAL","offerPeriod":"P1W","signedDate":1767225601234,
         "environment":"Sandbox","recentSubscriptionStartDate":1764547200000,"renewalDate":1769904000000,
         "renewalPrice":4990,"currency":"EUR","appAccountToken":"7e3fb20b-4cdb-47cc-936d-99d65f608138",
         "appTransactionId":"704897469903383919","eligibleWinBackOfferIds":["winback-50","winback-30"],
         "renewalBillingPlanType":"BILLED_UPFRONT",
         "commitmentInfo":{"commitmentAutoRenewProductId":"com.example.pro.yearly","commitmentAutoRenewStatus":0,
                           "commitmentRenewalBillingPlanType":"MONTHLY","commitmentRenewalDate":1793491200000,
                           "commitmentRenewalPrice":59880}}
        """

    @Test("a transaction with every documented member decodes each into its typed field")
    func fullTransactionMatchesFoundation() throws {
        let bytes = Self.fullTransaction.bytes
        let transaction = try TransactionPayload.decode(bytes)
        guard case .object(let parsed) = try JSONValue(parsing: bytes) else { throw Unexpected() }
        #expect(differences(transaction, parsed) == [])
        #expect(transaction.unknownFields.isEmpty)
        #expect(parsed.count == transaction.documentedMembers.count, "the sample must use every documented member")
    }

    @Test("renewal info with every documented member decodes each into its typed field")
    func fullRenewalInfoMatchesFoundation() throws {
        let bytes = Self.fullRenewalInfo.bytes
        let renewal = try RenewalInfoPayload.decode(bytes)
        guard case .object(let parsed) = try JSONValue(parsing: bytes) else { throw Unexpected() }
        #expect(differences(renewal, parsed) == [])
        #expect(renewal.unknownFields.isEmpty)
        #expect(parsed.count == renewal.documentedMembers.count, "the sample must use every documented member")
    }

    @Test("12-month commitment fields decode into typed values")
    func commitmentFields() throws {
        let transaction = try TransactionPayload.decode(Self.fullTransaction.bytes)
        #expect(transaction.billingPlanType == .monthly)
        #expect(transaction.commitmentInfo?.billingPeriodNumber == 3)
        #expect(transaction.commitmentInfo?.totalBillingPeriods == 12)
        #expect(transaction.commitmentInfo?.commitmentExpiresDate == 1_793_491_200_000)
        #expect(transaction.commitmentInfo?.commitmentPrice == 59_880)
        #expect(transaction.revocationType == .refundProrated)
        #expect(transaction.revocationPercentage == 50_000)
        #expect(transaction.revocationReason == .appIssue)
        #expect(transaction.offerType == .winBack)

        let renewal = try RenewalInfoPayload.decode(Self.fullRenewalInfo.bytes)
        #expect(renewal.renewalBillingPlanType == .billedUpfront)
        #expect(renewal.commitmentInfo?.commitmentAutoRenewProductId == "com.example.pro.yearly")
        #expect(renewal.commitmentInfo?.commitmentAutoRenewStatus == .off)
        #expect(renewal.commitmentInfo?.commitmentRenewalBillingPlanType == .monthly)
        #expect(renewal.commitmentInfo?.commitmentRenewalDate == 1_793_491_200_000)
        #expect(renewal.commitmentInfo?.commitmentRenewalPrice == 59_880)
        #expect(renewal.eligibleWinBackOfferIds == ["winback-50", "winback-30"])
        #expect(renewal.expirationIntent == .customerDidNotConsentToPriceIncrease)
        #expect(renewal.priceIncreaseStatus == .customerHasNotResponded)
    }

    @Test("a renewal-extension summary notification decodes its summary")
    func summaryNotification() throws {
        let json = """
            {"notificationType":"RENEWAL_EXTENSION","subtype":"SUMMARY","notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1af68eb20",
             "version":"2.0","signedDate":1698148900000,
             "summary":{"requestIdentifier":"efb27071-45a4-4aca-9854-2a1e9146f265","environment":"LocalTesting",
                        "appAppleId":41234,"bundleId":"com.example","productId":"com.example.product",
                        "storefrontCountryCodes":["CAN","USA","MEX"],"failedCount":5,"succeededCount":3}}
            """
        let notification = try NotificationPayload.decode(json.bytes)
        #expect(notification.notificationType == .renewalExtension)
        #expect(notification.subtype == .summary)
        #expect(notification.data == nil)
        let summary = try #require(notification.summary)
        #expect(summary.requestIdentifier == "efb27071-45a4-4aca-9854-2a1e9146f265")
        #expect(summary.environment == .localTesting)
        #expect(summary.appAppleId == 41234)
        #expect(summary.bundleId == "com.example")
        #expect(summary.productId == "com.example.product")
        #expect(summary.storefrontCountryCodes == ["CAN", "USA", "MEX"])
        #expect(summary.failedCount == 5)
        #expect(summary.succeededCount == 3)
        guard case .object(let parsed) = try JSONValue(parsing: json.bytes) else { throw Unexpected() }
        #expect(differences(notification, parsed) == [])
    }

    @Test("an external purchase token notification decodes its token")
    func externalPurchaseTokenNotification() throws {
        let json = """
            {"notificationType":"EXTERNAL_PURCHASE_TOKEN","subtype":"UNREPORTED","notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1af68eb20",
             "version":"2.0","signedDate":1698148900000,
             "externalPurchaseToken":{"externalPurchaseId":"b2158121-7af9-49d4-9561-1f588205523e","tokenCreationDate":1698148950000,
                                      "tokenExpirationDate":1698235350000,"tokenType":"ACQUISITION","appAppleId":55555,"bundleId":"com.example"}}
            """
        let notification = try NotificationPayload.decode(json.bytes)
        #expect(notification.notificationType == .externalPurchaseToken)
        #expect(notification.subtype == .unreported)
        let token = try #require(notification.externalPurchaseToken)
        #expect(token.externalPurchaseId == "b2158121-7af9-49d4-9561-1f588205523e")
        #expect(token.tokenCreationDate == 1_698_148_950_000)
        #expect(token.tokenExpirationDate == 1_698_235_350_000)
        #expect(token.tokenType == .acquisition)
        #expect(token.appAppleId == 55555)
        #expect(token.bundleId == "com.example")
    }

    @Test("a rescind-consent notification decodes its app data")
    func rescindConsentNotification() throws {
        let json = """
            {"notificationType":"RESCIND_CONSENT","notificationUUID":"002e14d5-51f5-4503-b5a8-c3a1af68eb20",
             "appData":{"appAppleId":41234,"bundleId":"com.example","environment":"LocalTesting",
                        "signedAppTransactionInfo":"signed_app_transaction_info_value"},
             "version":"2.0","signedDate":1698148900000}
            """
        let notification = try NotificationPayload.decode(json.bytes)
        #expect(notification.notificationType == .rescindConsent)
        #expect(notification.appData?.appAppleId == 41234)
        #expect(notification.appData?.environment == .localTesting)
        #expect(notification.appData?.signedAppTransactionInfo == "signed_app_transaction_info_value")
    }

    @Test("unknown notification types, subtypes, enum values and members are kept, not rejected")
    func unknownValuesAreKept() throws {
        let json = """
            {"notificationType":"SOMETHING_NEW","subtype":"BRAND_NEW_SUBTYPE","notificationUUID":"u-1",
             "futureObject": {"nested": [1, 2.5e3, "x", null, true, {"a": {}}]},
             "data":{"environment":"Staging","status":9,"consumptionRequestReason":"NEW_REASON","futureFlag":false},
             "futureNumber":  -12.75e-1 ,"version":"2.0"}
            """
        let notification = try NotificationPayload.decode(json.bytes)
        #expect(notification.notificationType?.rawValue == "SOMETHING_NEW")
        #expect(notification.notificationType != .test && notification.notificationType != .subscribed)
        #expect(notification.subtype?.rawValue == "BRAND_NEW_SUBTYPE")
        #expect(notification.data?.environment?.rawValue == "Staging")
        #expect(notification.data?.status?.rawValue == 9)
        #expect(notification.data?.consumptionRequestReason?.rawValue == "NEW_REASON")
        #expect(
            notification.unknownFields == [
                UnknownField(name: "futureObject", rawJSON: #"{"nested": [1, 2.5e3, "x", null, true, {"a": {}}]}"#),
                UnknownField(name: "futureNumber", rawJSON: "-12.75e-1"),
            ])
        #expect(notification.data?.unknownFields == [UnknownField(name: "futureFlag", rawJSON: "false")])
        #expect(notification.version == "2.0")
    }

    @Test("payloads without unknown members carry an empty unknownFields")
    func noUnknownMembers() throws {
        let transaction = try TransactionPayload.decode(#"{"transactionId":"1"}"#.bytes)
        #expect(transaction.unknownFields.isEmpty)
        #expect(transaction.transactionId == "1")
        #expect(transaction.price == nil)
    }

    @Test(
        "fractional and exponent millisecond dates round down to the millisecond they fall in",
        arguments: [
            ("1700000000000.123", Int64(1_700_000_000_000)),
            ("1700000000000.999", 1_700_000_000_000),
            ("1700000000000.0", 1_700_000_000_000),
            ("1700000000001", 1_700_000_000_001),
            ("1.7e12", 1_700_000_000_000),
            ("1.7000000000005E+12", 1_700_000_000_000),
            ("1700000000000123e-3", 1_700_000_000_000),
            ("170000000000.00019e1", 1_700_000_000_000),
            ("0.5", 0),
            ("0e999999999", 0),
            ("5e-999999999", 0),
            ("253402300799999.9", 253_402_300_799_999),
            ("2.53402300799999999e14", 253_402_300_799_999),
        ])
    func fractionalDates(literal: String, expected: Int64) throws {
        let transaction = try TransactionPayload.decode(#"{"purchaseDate": \#(literal)}"#.bytes)
        #expect(transaction.purchaseDate == expected)
    }

    @Test(
        "a date that floors before 1970 or after 9999 is out of range",
        arguments: ["-0.5", "-1700000000000.25", "-2e0", "253402300800000", "9223372036854775807.9", "-9223372036854775808"])
    func datesOutOfRange(literal: String) throws {
        #expect(performing: { try TransactionPayload.decode(#"{"purchaseDate": \#(literal)}"#.bytes) }, throws: { error in
            (error as? PayloadError)?.kind == .numberOutOfRange
        })
    }

    @Test("escaped strings decode to the characters they stand for, in values and member names")
    func escapedStrings() throws {
        let json = #"""
            {"productId":"caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t end","bundleId":"déjà vu ✓ 😀",
             "offer\u0049dentifier":"x","currency":"\u20AC"}
            """#
        let transaction = try TransactionPayload.decode(json.bytes)
        #expect(transaction.productId == "café 😀 \"q\" \\ / \u{08}\u{0C}\n\r\t end")
        #expect(transaction.bundleId == "déjà vu ✓ 😀")
        #expect(transaction.offerIdentifier == "x")
        #expect(transaction.currency == "€")
        #expect(transaction.unknownFields.isEmpty)
    }

    @Test("a known member holding null is treated as absent")
    func nullIsAbsent() throws {
        let transaction = try TransactionPayload.decode(#"{"price":null,"currency":"USD","commitmentInfo":null}"#.bytes)
        #expect(transaction.price == nil)
        #expect(transaction.commitmentInfo == nil)
        #expect(transaction.currency == "USD")
    }

    @Test("the webhook body yields the signed payload")
    func webhookBody() throws {
        let body = try ResponseBodyV2.decode(#" {"signedPayload":"eyJhbGciOiJFUzI1NiJ9.e30.c2ln"} "#.bytes)
        #expect(body.signedPayload == "eyJhbGciOiJFUzI1NiJ9.e30.c2ln")
    }

    @Test("decoding from a raw buffer and from an array gives the same payload")
    func rawBufferEntryPoint() throws {
        let bytes = Self.fullTransaction.bytes
        let fromBuffer = try bytes.withUnsafeBytes { buffer in try TransactionPayload.decode(buffer) }
        #expect(fromBuffer == (try TransactionPayload.decode(bytes)))
    }
}

struct Unexpected: Error {}

@Suite("Strings of every length and alignment")
struct StringAlignmentTests {
    @Test("escapes, non-ASCII and the closing quote are found at every position of a long string")
    func specialBytesAtEveryPosition() throws {
        for length in 0..<40 {
            for position in 0...length {
                let head = String(repeating: "a", count: position)
                let tail = String(repeating: "b", count: length - position)
                for (escaped, expected) in [
                    (#"\""#, "\""), (#"\\"#, "\\"), (#"\u00e9"#, "é"), ("é", "é"), ("€", "€"), ("", ""),
                ] {
                    let json = #"{"productId":"\#(head)\#(escaped)\#(tail)","currency":"USD"}"#
                    let transaction = try TransactionPayload.decode(json.bytes)
                    #expect(transaction.productId == head + expected + tail, "\(json)")
                    #expect(transaction.currency == "USD")
                }
                var control =
                    Array(#"{"productId":""#.utf8) + Array(head.utf8) + [0x1F] + Array(tail.utf8) + Array(#""}"#.utf8)
                #expect(throws: PayloadError.self, "unescaped control byte at \(position)") {
                    try TransactionPayload.decode(control)
                }
                control[14 + position] = 0x7F  // DEL is allowed unescaped
                #expect(try TransactionPayload.decode(control).productId?.utf8.count == length + 1)
            }
        }
    }
}
