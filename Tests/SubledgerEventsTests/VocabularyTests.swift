import Testing

@testable import SubledgerEvents

@Suite("Codec vocabularies")
struct VocabularyTests {
    static let all: [Vocabulary] = [
        .notificationType, .subtype, .environment, .consumptionRequestReason, .transactionType, .ownership,
        .offerDiscountType, .revocationType, .transactionReason, .billingPlanType, .currency, .storefront,
    ]

    @Test("each vocabulary's hot-path count matches its list, and no value appears twice")
    func countsMatch() {
        for vocabulary in Self.all {
            #expect(vocabulary.count == vocabulary.values.count, "\(vocabulary)")
            #expect(Set(vocabulary.values).count == vocabulary.values.count, "\(vocabulary)")
        }
    }

    @Test("the notification-type vocabulary holds exactly Apple's 23 types")
    func notificationTypes() {
        #expect(Set(Vocabulary.notificationType.values) == Set(EventClassificationTests.appleNotificationTypes))
    }
}
