import Foundation
import Synchronization
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

    @Test("a report at the log's end is answered from the database's rollups, folding no timeline; once the log has grown past that position, the same report is folded and answers the same")
    func reportAtTheLogsEndReadsTheRollups() throws {
        let test = try TestPKILedger(environments: ["Production"])
        let (start, fixtures, ledger) = (TestPKILedger.start, test.fixtures(.production), test.ledger)
        defer { ledger.close() }
        let day: Int64 = 86_400_000
        func append(_ type: NotificationType, _ transaction: TransactionPayload) throws {
            let body = fixtures.notification(type, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction)).webhookBody
            guard case .appended? = try ledger.ingest([IngestLine(bytes: body, line: 1, source: "test")], recordedAt: start).first else {
                throw LedgerError.configuration("not appended")
            }
        }
        for index in 0..<3 {
            try append(.subscribed, fixtures.transaction(transactionId: "200000000000090\(index)", purchaseDate: start + Int64(index) * day))
        }
        try append(.didRenew, fixtures.transaction(transactionId: "2000000000000910", originalTransactionId: "2000000000000900", purchaseDate: start + 30 * day))
        let end = try LogReader(directory: DataDirectoryLayout(test.directory.file("data")).log).summary().endPosition
        let folded = Mutex(0)
        let (from, to) = (UTCDay(containing: start), UTCDay(containing: start + 60 * day))
        func reports(at position: LogPosition) throws -> (RevenueReport, [MRRReport], ChurnReport, CohortReport) {
            try ledger.read { reader in
                let reader = reader.telling { count in folded.withLock { $0 += count } }
                let filter = ReportFilter(atPosition: position)
                return (try reader.revenue(RevenueQuery(from: from, to: to, by: .day, filter: filter)),
                        [try reader.mrr(MRRQuery(at: start + 10 * day, filter: filter)), try reader.mrr(MRRQuery(at: start + 35 * day, filter: filter))],
                        try reader.churn(ChurnQuery(from: from, to: to, filter: filter)),
                        try reader.cohorts(CohortQuery(from: UTCMonth(containing: start), to: UTCMonth(containing: start + 60 * day), now: start + 60 * day, filter: filter)))
            }
        }
        let atEnd = try reports(at: end)
        #expect(folded.withLock { $0 } == 0, "answered from the rollups")
        #expect(atEnd.0.rows.reduce(0) { $0 + $1.transactions } == 4)
        try append(.subscribed, fixtures.transaction(transactionId: "2000000000000920", purchaseDate: start + 5 * day))
        let folding = try reports(at: end)
        #expect(folded.withLock { $0 } > 0, "the position is now the last event's, which is left out: folded")
        #expect(folding == atEnd)
    }

    @Test("a position that was the log's end when asked is taken while the webhook appends: the log's end moving on between the two looks the check takes does not make it refused")
    func logEndTakenWhileAppending() throws {
        let test = try TestPKILedger(environments: ["Production"])
        let (start, fixtures, ledger) = (TestPKILedger.start, test.fixtures(.production), test.ledger)
        defer { ledger.close() }
        let bodies = (0..<600).map { index in
            let transaction = fixtures.transaction(transactionId: "\(2_000_000_000_100_000 + index)", purchaseDate: start + Int64(index) * 60_000)
            return fixtures.notification(.subscribed, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction)).webhookBody
        }
        let appending = Atomic(true)
        let appended = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            for body in bodies { _ = try? ledger.ingest([IngestLine(bytes: body, line: 1, source: "test")], recordedAt: start) }
            appending.store(false, ordering: .releasing)
            appended.signal()
        }
        let log = LogReader(directory: DataDirectoryLayout(test.directory.file("data")).log)
        let day = UTCDay(containing: start)
        var (asked, refused) = (0, [String]())
        while appending.load(ordering: .acquiring) {
            guard let end = try? log.summary().endPosition, end != .start else { continue }
            asked += 1
            do {
                _ = try ledger.read { try $0.revenue(RevenueQuery(from: day, to: day, filter: ReportFilter(atPosition: end))) }
            } catch let error as QueryError {
                refused.append(error.detail)
            }
        }
        appended.wait()
        #expect(asked > 50)
        #expect(refused.isEmpty, "\(refused.count) of \(asked) refused: \(refused.prefix(2))")
    }
}
