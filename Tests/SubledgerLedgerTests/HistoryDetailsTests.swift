import SubledgerEvents
import Testing
@testable import SubledgerLedger

/// `details` in `history --json` and `events --json`: what an event holds beyond its envelope,
/// so no fact needs its signed payload decoded by hand.
@Suite("History details")
struct HistoryDetailsTests {
    static let evidence = EvidenceRef(position: 0, length: 1)

    static func details(_ event: Event) -> String { HistoryReport.Item.details(event).serialized() }

    @Test("a consumption request's reason, a renewal extension summary's request and counts, an external purchase token's id are shown")
    func eventsWithoutTransactions() {
        #expect(Self.details(Event(type: .consumptionRequested, effectiveAt: 0, evidence: Self.evidence, consumptionRequestReason: "UNINTENDED_PURCHASE"))
            .contains(#""consumptionRequestReason":"UNINTENDED_PURCHASE""#))
        let summary = Self.details(Event(
            type: .renewalExtensionSummary, effectiveAt: 0, evidence: Self.evidence,
            renewalExtensionSummary: RenewalExtensionSummary(requestIdentifier: "req-1", productId: "pro.monthly", succeededCount: 40, failedCount: 2)))
        for member in [#""requestIdentifier":"req-1""#, #""succeededCount":40"#, #""failedCount":2"#] { #expect(summary.contains(member), "\(summary)") }
        let token = Self.details(Event(
            type: .externalPurchaseToken, effectiveAt: 0, evidence: Self.evidence,
            externalPurchaseToken: ExternalPurchaseTokenFacts(externalPurchaseId: "ext-1", tokenCreationDate: 1_767_225_600_000)))
        #expect(token.contains(#""externalPurchaseId":"ext-1""#) && token.contains(#""tokenCreationDate":"2026-01-01T00:00:00.000Z""#), "\(token)")
    }

    @Test("a price increase's status and renewal price, an offer's type and id, a refund's reason are shown")
    func renewalAndOfferFacts() {
        var transaction = TransactionFacts()
        transaction.offerType = 2
        transaction.offerIdentifier = "spring"
        transaction.revocationDate = 1_767_225_600_000
        transaction.revocationReason = 1
        var renewal = RenewalFacts()
        renewal.priceIncreaseStatus = 0
        renewal.renewalPrice = 12_990
        let shown = Self.details(Event(type: .priceIncrease, effectiveAt: 0, evidence: Self.evidence, transaction: transaction, renewal: renewal))
        for member in [#""priceIncreaseStatus":0"#, #""renewalPrice":12990"#, #""offerType":2"#, #""offerIdentifier":"spring""#, #""revocationReason":1"#] {
            #expect(shown.contains(member), "\(shown)")
        }
    }
}
