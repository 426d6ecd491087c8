import Foundation
import SubledgerAppStore
import SubledgerEvents
import SubledgerJWS
import SubledgerLog
import SubledgerProjections
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

@Suite("Reports at a log position")
struct ReportsAtPositionTests {
    @Test("a report at a position defaults to the environment that had data then: Sandbox, before the first Production sale, a Production TEST notification notwithstanding")
    func defaultEnvironmentAsItWas() throws {
        let test = try TestPKILedger(environments: ["Production", "Sandbox"])
        let (start, ledger) = (TestPKILedger.start, test.ledger)
        defer { ledger.close() }
        func subscribe(_ environment: AppStoreEnvironment, _ id: String) throws -> LogPosition? {
            let fixtures = test.fixtures(environment)
            let transaction = fixtures.transaction(transactionId: id, purchaseDate: start)
            let body = fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction)).webhookBody
            guard case .appended(let position)? = try ledger.ingest([IngestLine(bytes: body, line: 1, source: "test")], recordedAt: start).first else { return nil }
            return UInt64(position).map(LogPosition.init(rawValue:))
        }
        let notification = test.fixtures(.production).notification(.test, signedDate: start).webhookBody
        #expect(try ledger.ingest([IngestLine(bytes: notification, line: 1, source: "test")], recordedAt: start).allSatisfy { if case .appended = $0 { true } else { false } })
        #expect(try subscribe(.sandbox, "2000000000000501") != nil)
        let production = try #require(try subscribe(.production, "2000000000000601"))
        let day = UTCDay(containing: start)
        func revenue(atPosition: LogPosition?) throws -> RevenueReport {
            try ledger.read { try $0.revenue(RevenueQuery(from: day, to: day, filter: ReportFilter(atPosition: atPosition))) }
        }
        let then = try revenue(atPosition: production)
        #expect(then.environment == "Sandbox")
        #expect(then.rows.map(\.grossSales) == [9990], "the Sandbox sale, as a ledger that stopped there reports it")
        #expect(try revenue(atPosition: nil).environment == "Production")
    }

    @Test("customer at a position, through the database: an id recorded later names no one, a token recorded later neither names nor groups the customer")
    func customerThroughTheDatabase() throws {
        let test = try TestPKILedger(environments: ["Production"])
        let (start, fixtures, ledger) = (TestPKILedger.start, test.fixtures(.production), test.ledger)
        defer { ledger.close() }
        let day: Int64 = 86_400_000
        let first = fixtures.transaction(transactionId: "2000000000000701", purchaseDate: start)
        var renewal = fixtures.transaction(transactionId: "2000000000000702", originalTransactionId: "2000000000000701", purchaseDate: start + 30 * day)
        renewal.appAccountToken = "aaaa0000-0000-4000-8000-000000000002"
        var positions: [LogPosition] = []
        for (type, transaction) in [(NotificationType.subscribed, first), (.didRenew, renewal)] {
            let body = fixtures.notification(type, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction)).webhookBody
            guard case .appended(let position)? = try ledger.ingest([IngestLine(bytes: body, line: 1, source: "test")], recordedAt: start).first else {
                Issue.record("not appended")
                return
            }
            positions.append(LogPosition(rawValue: UInt64(position)!))
        }
        func customer(_ id: String, before position: LogPosition?) throws -> String? {
            try ledger.read { reader in try? reader.customer(CustomerQuery(id: id, asOf: start + 40 * day, atPosition: position)).customerId }
        }
        #expect(try customer("2000000000000701", before: positions[1]) == "2000000000000701", "named by its originalTransactionId before the token came")
        #expect(try customer("2000000000000702", before: positions[1]) == nil)
        #expect(try customer("aaaa0000-0000-4000-8000-000000000002", before: positions[1]) == nil)
        #expect(try customer("2000000000000701", before: nil) == "aaaa0000-0000-4000-8000-000000000002")
        #expect(try customer("2000000000000702", before: nil) == "aaaa0000-0000-4000-8000-000000000002")
    }
}
