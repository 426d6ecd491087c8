import Foundation
import SubledgerAppStore
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
        let directory = TemporaryDirectory()
        let start = AppStoreFixtures.defaultPurchaseDate
        let pki = try TestPKI(validity: (start - 86_400_000)...(start + 400 * 86_400_000))
        let root = directory.file("root.cer")
        try Data(pki.rootDER).write(to: URL(fileURLWithPath: root))
        _ = try Ledger.initialize(
            directory: directory.file("data"), bundleId: AppStoreFixtures.defaultBundleId, appAppleId: AppStoreFixtures.defaultAppAppleId,
            environments: ["Production", "Sandbox"], rootFiles: [root], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: directory.file("data"))
        defer { ledger.close() }
        func subscribe(_ environment: AppStoreEnvironment, _ id: String) throws -> LogPosition? {
            let fixtures = AppStoreFixtures(pki: pki, environment: environment)
            let transaction = fixtures.transaction(transactionId: id, purchaseDate: start)
            let body = fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction)).webhookBody
            guard case .appended(let position)? = try ledger.ingest([IngestLine(bytes: body, line: 1, source: "test")], recordedAt: start).first else { return nil }
            return UInt64(position).map(LogPosition.init(rawValue:))
        }
        let test = AppStoreFixtures(pki: pki, environment: .production).notification(.test, signedDate: start).webhookBody
        #expect(try ledger.ingest([IngestLine(bytes: test, line: 1, source: "test")], recordedAt: start).allSatisfy { if case .appended = $0 { true } else { false } })
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
        let directory = TemporaryDirectory()
        let start = AppStoreFixtures.defaultPurchaseDate
        let pki = try TestPKI(validity: (start - 86_400_000)...(start + 400 * 86_400_000))
        let root = directory.file("root.cer")
        try Data(pki.rootDER).write(to: URL(fileURLWithPath: root))
        let fixtures = AppStoreFixtures(pki: pki, environment: .production)
        _ = try Ledger.initialize(
            directory: directory.file("data"), bundleId: fixtures.bundleId, appAppleId: fixtures.appAppleId,
            environments: ["Production"], rootFiles: [root], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: directory.file("data"))
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
