import SubledgerEvents
import SubledgerTestSupport

/// Random events that reach every corner of the encoding: each optional field present or
/// absent, extreme integers, long and non-ASCII strings, identifiers that must and must not be
/// stored as numbers, UUIDs in every case, Apple values known and unknown.
struct RandomEvents {
    var rng: SeededGenerator

    init(seed: UInt64) {
        rng = SeededGenerator(state: seed)
    }

    mutating func event() -> Event {
        Event(
            type: EventType.allCases.randomElement(using: &rng)!,
            effectiveAt: instant(),
            evidence: EvidenceRef(position: unsigned(), length: UInt32(truncatingIfNeeded: unsigned())),
            notificationUUID: maybe { $0.uuidLike() },
            notificationType: maybe { $0.appleValue(["DID_RENEW", "SUBSCRIBED", "TEST", "REFUND", "FUTURE_TYPE"]) },
            subtype: maybe { $0.appleValue(["INITIAL_BUY", "VOLUNTARY", "UNREPORTED", "NEW_SUBTYPE"]) },
            environment: maybe {
                AppStoreEnvironment(
                    rawValue: $0.appleValue(["Production", "Sandbox", "Xcode", "LocalTesting", "Staging"]))
            },
            status: maybe { $0.int() },
            consumptionRequestReason: maybe { $0.appleValue(["LEGAL", "OTHER", "CHANGED_MIND"]) },
            transaction: maybe { $0.transaction() },
            renewal: maybe { $0.renewal() },
            renewalExtensionSummary: maybe {
                RenewalExtensionSummary(
                    requestIdentifier: $0.maybe { $0.uuidLike() }, productId: $0.maybe { $0.text() },
                    succeededCount: $0.maybe { $0.int() }, failedCount: $0.maybe { $0.int() })
            },
            externalPurchaseToken: maybe {
                ExternalPurchaseTokenFacts(
                    externalPurchaseId: $0.maybe { $0.uuidLike() }, tokenCreationDate: $0.maybe { $0.instant() },
                    appAppleId: $0.maybe { $0.int64() }, bundleId: $0.maybe { $0.text() })
            })
    }

    mutating func transaction() -> TransactionFacts {
        TransactionFacts(
            transactionId: maybe { $0.identifier() },
            originalTransactionId: maybe { $0.identifier() },
            webOrderLineItemId: maybe { $0.identifier() },
            productId: maybe { $0.text() },
            subscriptionGroupIdentifier: maybe { $0.identifier() },
            type: maybe { $0.appleValue(["Auto-Renewable Subscription", "Consumable", "Non-Consumable", "Bundle"]) },
            purchaseDate: maybe { $0.instant() },
            originalPurchaseDate: maybe { $0.instant() },
            expiresDate: maybe { $0.instant() },
            signedDate: maybe { $0.instant() },
            price: maybe { $0.int64() },
            currency: maybe { $0.appleValue(["USD", "EUR", "JPY", "ISK", "usd"]) },
            storefront: maybe { $0.appleValue(["USA", "FRA", "ISL", ""]) },
            offerType: maybe { $0.int() },
            offerDiscountType: maybe { $0.appleValue(["FREE_TRIAL", "PAY_UP_FRONT", "NEW_DISCOUNT"]) },
            offerIdentifier: maybe { $0.text() },
            offerPeriod: maybe { $0.appleValue(["P1W", "P1M", "P1Y"]) },
            ownership: maybe { $0.appleValue(["PURCHASED", "FAMILY_SHARED", "GIFTED"]) },
            isUpgraded: maybe { $0.bool() },
            revocationDate: maybe { $0.instant() },
            revocationReason: maybe { $0.int() },
            revocationType: maybe { $0.appleValue(["REFUND_FULL", "REFUND_PRORATED", "FAMILY_REVOKE", "OTHER"]) },
            revocationPercentage: maybe { $0.int() },
            appAccountToken: maybe { $0.uuidLike() },
            transactionReason: maybe { $0.appleValue(["PURCHASE", "RENEWAL", "GIFT"]) },
            quantity: maybe { $0.int() },
            billingPlanType: maybe { $0.appleValue(["BILLED_UPFRONT", "MONTHLY", "QUARTERLY"]) },
            commitment: maybe {
                TransactionFacts.Commitment(
                    billingPeriodNumber: $0.maybe { $0.int() }, totalBillingPeriods: $0.maybe { $0.int() },
                    commitmentExpiresDate: $0.maybe { $0.instant() }, commitmentPrice: $0.maybe { $0.int64() })
            })
    }

    mutating func renewal() -> RenewalFacts {
        RenewalFacts(
            originalTransactionId: maybe { $0.identifier() },
            productId: maybe { $0.text() },
            autoRenewProductId: maybe { $0.text() },
            autoRenewStatus: maybe { $0.int() },
            expirationIntent: maybe { $0.int() },
            isInBillingRetryPeriod: maybe { $0.bool() },
            gracePeriodExpiresDate: maybe { $0.instant() },
            priceIncreaseStatus: maybe { $0.int() },
            renewalPrice: maybe { $0.int64() },
            currency: maybe { $0.appleValue(["USD", "GBP", "XTS"]) },
            offerType: maybe { $0.int() },
            offerIdentifier: maybe { $0.text() },
            offerDiscountType: maybe { $0.appleValue(["ONE_TIME", "PAY_AS_YOU_GO", "x"]) },
            signedDate: maybe { $0.instant() },
            renewalDate: maybe { $0.instant() },
            recentSubscriptionStartDate: maybe { $0.instant() },
            renewalBillingPlanType: maybe { $0.appleValue(["MONTHLY", "BILLED_UPFRONT", "WEEKLY"]) },
            commitment: maybe {
                RenewalFacts.CommitmentRenewal(
                    commitmentAutoRenewProductId: $0.maybe { $0.text() },
                    commitmentAutoRenewStatus: $0.maybe { $0.int() },
                    commitmentRenewalBillingPlanType: $0.maybe { $0.appleValue(["MONTHLY", "NEW"]) },
                    commitmentRenewalDate: $0.maybe { $0.instant() },
                    commitmentRenewalPrice: $0.maybe { $0.int64() })
            })
    }

    /// Present or absent with even odds.
    mutating func maybe<T>(_ make: (inout Self) -> T) -> T? {
        bool() ? make(&self) : nil
    }

    mutating func bool() -> Bool {
        rng.next() & 1 == 0
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices.randomElement(using: &rng)!
    }

    mutating func unsigned() -> UInt64 {
        pick([0, 1, 127, 128, 16_383, 16_384, UInt64(UInt32.max), UInt64.max, rng.next(), rng.next() >> 30])
    }

    mutating func int64() -> Int64 {
        pick([
            0, -1, 1, Int64.min, Int64.max, Int64.min + 1, Int64.max - 1, 9_990, -63, 64,
            Int64(bitPattern: rng.next()), Int64(bitPattern: rng.next()) >> 40,
        ])
    }

    mutating func int() -> Int {
        pick([0, 1, 2, 5, -1, Int.min, Int.max, 50_000, Int(truncatingIfNeeded: rng.next())])
    }

    /// Mostly realistic epoch milliseconds (so dates sit near each other), sometimes extreme.
    mutating func instant() -> Int64 {
        if rng.next() % 8 == 0 { return pick([Int64.min, Int64.max, 0, -1, -86_400_000]) }
        return 1_600_000_000_000 + Int64(rng.next() % 400_000_000_000)
    }

    mutating func identifier() -> String {
        switch rng.next() % 10 {
        case 0: "0"
        case 1: "0" + String(rng.next() % 1_000_000_000)  // leading zero: must stay text
        case 2: "9223372036854775807"  // 2^63 - 1: the largest number stored as one
        case 3: "9223372036854775808"  // 2^63: text
        case 4: "99999999999999999999"  // 20 digits: text
        case 5: text()
        case 6: "-" + String(rng.next() % 1000)
        default: String(2_000_000_000_000_000 + rng.next() % 1_000_000_000_000)
        }
    }

    mutating func uuidLike() -> String {
        let hex = (0..<32).map { _ in "0123456789abcdef".randomElement(using: &rng)! }
        var uuid = String(hex)
        for index in [8, 13, 18, 23] {
            uuid.insert("-", at: uuid.index(uuid.startIndex, offsetBy: index))
        }
        switch rng.next() % 6 {
        case 0: return uuid.uppercased()
        case 1: return uuid.prefix(1).uppercased() + uuid.dropFirst().lowercased() + "a"  // 37 chars
        case 2: return "A" + uuid.dropFirst()  // mixed case: text, unless the first digit is all there is
        case 3: return text()
        default: return uuid
        }
    }

    /// A known Apple value most of the time, otherwise any text.
    mutating func appleValue(_ values: [String]) -> String {
        rng.next() % 5 == 0 ? text() : pick(values)
    }

    mutating func text() -> String {
        switch rng.next() % 8 {
        case 0: return ""
        case 1: return String(repeating: "com.example.product.", count: 1 + Int(rng.next() % 200))
        case 2: return pick(["é", "e\u{301}", "日本語のプロダクト", "🇫🇷👩‍👩‍👧", "\u{0}nul", "Ω≈ç√∫", "\u{FEFF}bom"])
        case 3: return String(rng.next())
        case 4: return pick(["a", "USD", "PURCHASED", "Sandbox"])
        default:
            let length = Int(rng.next() % 40)
            let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789._-ÅßЖ中😀")
            return String((0..<length).map { _ in alphabet.randomElement(using: &rng)! })
        }
    }
}

extension EventCodec {
    /// The encoding of one event in a fresh buffer.
    static func encoded(_ event: Event) -> [UInt8] {
        var bytes: [UInt8] = []
        encode(event, into: &bytes)
        return bytes
    }

    static func decode(_ bytes: [UInt8]) throws(EventDecodingError) -> Event {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(EventDecodingError) in try decode(raw) }
        }.get()
    }
}
