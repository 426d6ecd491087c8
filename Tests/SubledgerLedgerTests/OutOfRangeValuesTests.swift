import Foundation
import SubledgerAppStore
import SubledgerLog
import SubledgerProjections
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

@Suite("Values outside what the App Store sends")
struct OutOfRangeValuesTests {
    /// A signed purchase the App Store never sends: a price near Int64's limit, whose proceeds
    /// (`price × 85`) overflowed and trapped every fold of the ledger that stored it.
    @Test("a signed purchase priced beyond any amount is quarantined as payload_invalid naming the field, and the ledger goes on answering")
    func absurdPriceIsQuarantined() throws {
        let test = try TestPKILedger(environments: ["Production"])
        let (start, fixtures, ledger) = (TestPKILedger.start, test.fixtures(.production), test.ledger)
        defer { ledger.close() }
        func purchase(_ id: String, price: Int64) -> [UInt8] {
            let transaction = fixtures.transaction(transactionId: id, productId: "com.example.coins", type: .consumable, purchaseDate: start, price: price, currency: "VND")
            return fixtures.notification(.oneTimeCharge, transaction: transaction).webhookBody
        }
        let outcomes = try ledger.ingest(
            [IngestLine(bytes: purchase("2000000000000801", price: 5_000_000_000_000_000_000), line: 1, source: "test"),
             IngestLine(bytes: purchase("2000000000000802", price: 249_000_000), line: 2, source: "test")],
            recordedAt: start)
        guard case .rejected("payload_invalid", let detail) = outcomes[0] else {
            Issue.record("the absurd price was \(outcomes[0])")
            return
        }
        #expect(detail.contains("'price'") && detail.contains("10000000000000"), "\(detail)")
        guard case .appended = outcomes[1] else {
            Issue.record("the real price was \(outcomes[1])")
            return
        }
        #expect(try Ledger.quarantined(directory: ledger.layout.root).count == 1)
        #expect(try LogReader(directory: ledger.layout.log).summary().records == 1)
        let day = UTCDay(containing: start)
        let report = try ledger.read { try $0.revenue(RevenueQuery(from: day, to: day, filter: ReportFilter())) }
        #expect(report.rows.map(\.grossSales) == [249_000_000])
    }

    @Test("a signed payload that names what it is but does not decode is refused with the decoder's own reason, not as lacking what it names")
    func undecodablePayloadSaysWhy() throws {
        let test = try TestPKILedger(environments: ["Production"])
        let (start, fixtures, ledger) = (TestPKILedger.start, test.fixtures(.production), test.ledger)
        defer { ledger.close() }
        let transaction = fixtures.transaction(transactionId: "2000000000000811", productId: "com.example.coins", type: .consumable, purchaseDate: start, price: 990, currency: "USD")
        let notification = fixtures.notification(.oneTimeCharge, transaction: transaction).payload
        // The member named twice: Apple's library would take the last; neither is taken here.
        let twice = String(decoding: notification.jsonBytes(), as: UTF8.self).replacingOccurrences(
            of: #""notificationType":"ONE_TIME_CHARGE""#, with: #""notificationType":"ONE_TIME_CHARGE","notificationType":"REFUND""#)
        var negative = transaction
        negative.price = -1
        let lines = [
            IngestLine(bytes: fixtures.signer.sign(payload: Array(twice.utf8)), line: 1, source: "test"),
            IngestLine(bytes: Array(fixtures.signedTransactionInfo(negative).utf8), line: 2, source: "test"),
        ]
        let outcomes = try ledger.ingest(lines, recordedAt: start)
        guard case .rejected("payload_invalid", let duplicated) = outcomes[0], case .rejected("payload_invalid", let priced) = outcomes[1] else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(duplicated.contains("notificationType") && duplicated.contains("more than once"), "\(duplicated)")
        #expect(!duplicated.contains("no notificationType"), "\(duplicated)")
        #expect(priced.contains("'price'") && !priced.contains("no transactionId"), "\(priced)")
    }
}
