import SubledgerCore
import Foundation
import SubledgerEvents
import SubledgerLMDB
import SubledgerLog
import SubledgerTestSupport
@testable import SubledgerProjections
import Synchronization
import Testing

/// A data directory for one test: a log and a projections directory, removed afterwards.
final class DataDirectory {
    let path: String
    var log: String { path + "/log" }
    var projections: String { path + "/projections" }
    private var writer: LogWriter?

    init() throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("subledger-projections-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path + "/log", withIntermediateDirectories: true)
    }

    deinit {
        writer?.close()
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Appends `events` as event records (recorded one second after they were signed).
    @discardableResult
    func append(_ events: [Event]) throws -> [LogPosition] {
        if writer == nil { writer = try LogWriter(directory: log, options: LogOptions(segmentSize: 64 * 1024)) }
        return try writer!.append(events.map { EventRecord.logRecord(for: $0, recordedAtMillis: $0.effectiveAt + 1000) })
    }

    /// Flips a byte inside the payload of the record at `position`, in its segment file.
    func damagePayload(at position: LogPosition) throws {
        let segments = try FileManager.default.contentsOfDirectory(atPath: log).filter { $0.hasSuffix(".seg") }
        let first = segments.compactMap { UInt64($0.dropLast(4)) }.filter { $0 <= position.rawValue }.max()!
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: log + "/" + String(first).leftPadded(20) + ".seg"))
        defer { try? file.close() }
        let offset = position.rawValue - first + 10 + 2  // past the 10-byte frame header
        try file.seek(toOffset: offset)
        let byte = try file.read(upToCount: 1)![0]
        try file.seek(toOffset: offset)
        file.write(Data([byte ^ 0x40]))
    }

    func appendRaw(_ record: LogRecord) throws {
        if writer == nil { writer = try LogWriter(directory: log) }
        _ = try writer!.append([record])
    }

    func entries() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: projections).sorted()
    }

    func current() throws -> String {
        try String(contentsOfFile: projections + "/CURRENT", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}

/// Runs `body` with a store whose database was made from the March scenario's log, opened on a
/// log of its first five events instead (both directories live until `body` returns).
func withStoreOnAnotherLog(observer: RebuildObserver? = nil, _ body: (ProjectionStore) throws -> Void) throws {
    let events = MarchScenario().events
    let data = try DataDirectory()
    try data.append(events)
    _ = try ProjectionStore(directory: data.projections, logDirectory: data.log)
    let shorter = try DataDirectory()
    try shorter.append(Array(events[..<5]))
    try body(try ProjectionStore(directory: data.projections, logDirectory: shorter.log, observer: observer))
}

/// Every key and value of every database of the snapshot at `path`, in cursor order.
func dumpSnapshot(_ path: String) throws -> [String: [[UInt8]]] {
    let environment = try LMDBEnvironment(path: path, mapSize: 1 << 20, options: [.readOnly])
    var dump: [String: [[UInt8]]] = [:]
    for name in ["meta", "strings", "timelines", "tokens", "notifications", "transactions", "rollups", "postings"] {
        let database = try environment.openDatabase(named: name, create: false)
        try environment.read { txn in
            var entries: [[UInt8]] = []
            try txn.forEach(in: database) { key, value in
                entries.append(Array(key))
                entries.append(Array(value))
                return true
            }
            dump[name] = entries
        }
    }
    return dump
}

@Suite("Projection store: snapshots, restarts and rebuilds")
struct ProjectionStoreTests {
    @Test("a database of half the log plus catching up on the rest holds what one pass writes, entry for entry")
    func restartCatchUp() throws {
        let (events, ids) = mixedEvents()
        let half = events.count / 2
        let data = try DataDirectory()
        try data.append(Array(events[..<half]))
        try {
            let first = try ProjectionStore(directory: data.projections, logDirectory: data.log)
            #expect(first.opening == .rebuilt(.missing))
            #expect(first.eventsFolded == half)
        }()

        try data.append(Array(events[half...]))
        let caughtUpPath: String = try {
            let reopened = try ProjectionStore(directory: data.projections, logDirectory: data.log)
            #expect(reopened.opening == .loaded)
            #expect(reopened.eventsFolded == events.count)
            #expect(Answers(try reopened.reader.materialized(), ids: ids) == Answers(TestLedger(events).projection, ids: ids))
            try reopened.seal()
            return reopened.snapshotPath
        }()

        // Two independent rebuilds of the same log, and the caught-up database, hold the same entries.
        let other = try DataDirectory()
        try other.append(events)
        let rebuiltPath = try ProjectionStore(directory: other.projections, logDirectory: other.log).snapshotPath
        let againPath = try ProjectionStore(directory: other.projections + "-again", logDirectory: other.log).snapshotPath
        let caughtUpDump = try dumpSnapshot(caughtUpPath)
        #expect(try dumpSnapshot(rebuiltPath) == caughtUpDump)
        #expect(try dumpSnapshot(againPath) == caughtUpDump)
        #expect(caughtUpDump["notifications"]?.count == 2 * TestLedger(events).projection.notificationCount)
    }

    @Test("at the log's end a database folded through its last record answers every report from its rollups, as the fold answers it; other settings, or a last record it has not folded, send the report to the fold")
    func logEndAnswersFromRollups() throws {
        let (events, _) = mixedEvents()
        let data = try DataDirectory()
        let positions = try data.append(events)
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        let folded = Mutex(0)
        var reader = store.reader
        reader.timelinesFolded = { count in folded.withLock { $0 += count } }
        let atEnd = LogPosition(rawValue: positions.last!.rawValue + 1)
        let (from, to) = (UTCDay("2025-12-01")!, UTCDay("2026-05-31")!)
        func reports(_ logEnd: ReportScope.LogEnd?) throws -> [String] {
            let scope = ReportScope(environment: .production, atPosition: atEnd, logEnd: logEnd)
            return [
                "\(try reader.revenue(from: from, to: to, by: .day, byProduct: true, scope: scope))",
                "\(try reader.revenue(from: from, to: to, refunds: .original, scope: scope))",
                "\(try reader.mrr(at: [at("2026-01-20"), at("2026-02-20"), at("2026-03-20")], scope: scope))",
                "\(try reader.churn(from: from, to: to, by: .day, scope: scope))",
                "\(try reader.cohorts(from: UTCMonth("2025-12")!, to: UTCMonth("2026-05")!, now: at("2026-06-01"), scope: scope))",
            ]
        }
        let fromFold = try reports(nil)
        #expect(folded.withLock { $0 } > 0)
        folded.withLock { $0 = 0 }
        #expect(try reports(ReportScope.LogEnd(lastRecord: positions.last!, settings: RollupSettings())) == fromFold)
        #expect(folded.withLock { $0 } == 0, "answered from the rollups")
        #expect(try reports(ReportScope.LogEnd(lastRecord: positions.last!, settings: RollupSettings(smallBusiness: true))) == fromFold)
        #expect(folded.withLock { $0 } > 0, "rollups made under other settings: folded")
        folded.withLock { $0 = 0 }
        #expect(try reports(ReportScope.LogEnd(lastRecord: positions[positions.count - 2], settings: RollupSettings())) == fromFold)
        #expect(folded.withLock { $0 } > 0, "a database folded past the last record asked for: folded")
    }

    @Test("a rebuild (transaction index built after the fold) finds every customer by any transaction id, as event-by-event folding does")
    func rebuildIndexesTransactions() throws {
        let (events, _) = mixedEvents()
        let data = try DataDirectory()
        try data.append(events)
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        let folded = TestLedger(events).projection
        let transactionIds = Set(events.compactMap { $0.transaction?.transactionId })
        #expect(transactionIds.count > 5)
        let instant = at("2026-06-01")
        let materialized = try store.reader.materialized()
        for id in transactionIds {
            let rebuilt = materialized.customer(id, asOf: instant)
            #expect(rebuilt != nil, "transaction \(id) not found after a rebuild")
            #expect(rebuilt == folded.customer(id, asOf: instant))
        }
        // Later events go through the index kept while folding.
        let reopened = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        let reread = try reopened.reader.materialized()
        for id in transactionIds { #expect(reread.customer(id, asOf: instant) == folded.customer(id, asOf: instant)) }
    }

    @Test("a rebuild's two-core fold, over many batches, answers exactly as folding event by event")
    func pipelinedRebuildEqualsSequentialFold() throws {
        var notifier = Notifier()
        var events: [Event] = []
        var ids: [String] = []
        // 1,500 subscribers x 6 events crosses several of the pipeline's batches; products, text
        // tokens and storefronts first seen late check that strings interned by the reader
        // thread reach the folding side; every 7th notification is delivered twice.
        for n in 0..<1500 {
            var subscriber = Subscriber(String(7_000_000 + n), token: n % 3 == 0 ? "Customer-\(n % 97)" : nil)
            subscriber.productId = "product.\(n / 300)"
            subscriber.storefront = n > 1200 ? "FRA" : "USA"
            ids.append(subscriber.originalTransactionId)
            if let token = subscriber.token { ids.append(token.lowercased()) }
            for month in 0..<6 {
                let purchased = at("2026-01-01") + Int64(n) * minute + Int64(month) * 30 * day
                let transaction = subscriber.transaction(String(8_000_000 + n * 10 + month), purchased: purchased, expires: purchased + 30 * day)
                let event = notifier.notification(month == 0 ? "SUBSCRIBED" : "DID_RENEW", month == 0 ? "INITIAL_BUY" : nil, signed: purchased,
                                                  transaction: transaction, renewal: subscriber.renewal(signed: purchased))
                events.append(event)
                if events.count % 7 == 0 { events.append(event) }
            }
        }
        let data = try DataDirectory()
        try data.append(events)
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        #expect(store.opening == .rebuilt(.missing))
        let sequential = TestLedger(events).projection
        #expect(store.eventsFolded == events.count)
        #expect(try store.reader.summary().notifications == sequential.notificationCount)
        #expect(try store.reader.summary().customers == sequential.customerCount)
        // Materialized once: the whole projection, read back from the database.
        let rebuilt = try store.reader.materialized()
        for id in ids { #expect(rebuilt.customer(id, asOf: at("2026-05-01")) == sequential.customer(id, asOf: at("2026-05-01")), "\(id)") }
        let scope = ReportScope(environment: .production)
        #expect(rebuilt.revenue(from: UTCDay("2026-01-01")!, to: UTCDay("2026-06-30")!, byProduct: true, refunds: .refundDate, scope: scope)
                == sequential.revenue(from: UTCDay("2026-01-01")!, to: UTCDay("2026-06-30")!, byProduct: true, refunds: .refundDate, scope: scope))
    }

    @Test("a rebuild stops at an event record that does not decode, names its position, and keeps the snapshot in use")
    func rebuildStopsAtUndecodableRecord() throws {
        let data = try DataDirectory()
        try data.append(Array(MarchScenario().events))
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        let before = try data.current()
        try data.appendRaw(LogRecord(kind: EventRecord.kind, payload: [1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 1]))
        let error = try #require(throws: ProjectionError.self) { try store.rebuild() }
        guard case .undecodableEvent = error.kind else { Issue.record("\(error)"); return }
        #expect(try data.current() == before)
    }

    @Test("catching up through the last acknowledged record never reads the append in progress after it")
    func catchUpStopsAtAcknowledged() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(Array(events.prefix(2)))
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        let acknowledged = try data.append(Array(events[2..<5]))
        // The next append, as a reader racing its write could see it: a frame that does not check.
        let inProgress = try data.append([events[5]])
        try data.damagePayload(at: inProgress[0])
        #expect(try store.catchUp(through: acknowledged.last!) == 3)
        #expect(store.lastPosition == acknowledged.last)
        #expect(throws: ProjectionError.self) { try store.catchUp() }
    }

    @Test("opened with an end beside appends (a server's rebuild on open), a rebuild and a catch-up fold only the records before it, never the append in progress after it")
    func rebuildingBeforeStopsAtTheEnd() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(Array(events.prefix(5)))
        // What was appended after the log's end as opened: its last frame still being written.
        let after = try data.append(Array(events[5..<8]))
        try data.damagePayload(at: after.last!)
        // In a scope of its own: a process opens a database once at a time.
        do {
            let rebuilt = try ProjectionStore(directory: data.projections, logDirectory: data.log, rebuildingBefore: after[0])
            #expect(rebuilt.opening == .rebuilt(.missing))
            #expect(rebuilt.eventsFolded == 5)
            #expect(rebuilt.lastPosition.map { $0 < after[0] } == true)
            try rebuilt.seal()
        }

        // Reopened usable, it catches up only as far as the end given.
        let reopened = try ProjectionStore(directory: data.projections, logDirectory: data.log, rebuildingBefore: after[1])
        #expect(reopened.opening == .loaded)
        #expect(reopened.eventsFolded == 6)
        #expect(reopened.lastPosition == after[0])
    }

    @Test("a database whose checkpoint is at or past the end given (a log cut shorter than it) is rebuilt from the records before the end, not trusted")
    func checkpointPastTheEndRebuilds() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        let positions = try data.append(Array(events.prefix(8)))
        try ProjectionStore(directory: data.projections, logDirectory: data.log).seal()
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log, rebuildingBefore: positions[4])
        #expect(store.opening == .rebuilt(.logMismatch))
        #expect(store.eventsFolded == 4)
        #expect(store.lastPosition == positions[3])
    }

    @Test("a fold that meets a frame failing its CRC says the log is damaged, and where, not merely unreadable")
    func foldMeetsDamage() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(Array(events.prefix(2)))
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        let appended = try data.append(Array(events[2..<5]))
        try data.damagePayload(at: appended[0])
        let error = #expect(throws: ProjectionError.self) { try store.catchUp() }
        guard case .logCorrupted(let problem) = error?.kind else {
            Issue.record("expected logCorrupted, got \(String(describing: error))")
            return
        }
        #expect(problem.kind == .crcMismatch)
        #expect(error?.description.contains("subledger verify") == true)
    }

    @Test("catching up folds only what was appended since the last fold")
    func catchUpIncrementally() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(Array(events[..<10]))
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        #expect(try store.catchUp() == 0)
        try data.append(Array(events[10...]))
        #expect(try store.catchUp() == events.count - 10)
        #expect(try store.catchUp() == 0)
        #expect(Answers((try store.reader.materialized()), ids: MarchScenario.ids) == Answers(TestLedger(events).projection, ids: MarchScenario.ids))
    }

    @Test("a reader taken before a rebuild names the strings of the database it reads, though the rebuild numbers them differently")
    func readerBeforeRebuildKeepsItsStrings() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(Array(events[..<1]))
        // Folded as they come, strings are numbered in the order `apply` meets them; a rebuild
        // numbers them in the order its decoding side does (here a notification's subtype
        // before its type).
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        let positions = try data.append(Array(events[1...]))
        try store.catchUp()
        let folded = store.strings.strings
        let before = store.reader
        let scope = ReportScope(environment: .production, atPosition: LogPosition(rawValue: positions.last!.rawValue + 1))
        let (from, to) = (UTCDay("2026-01-01")!, UTCDay("2026-12-31")!)
        let revenue = try before.revenue(from: from, to: to, by: .day, byProduct: true, scope: scope)
        let histories = try MarchScenario.ids.map { try before.history($0) }
        try store.rebuild()
        try #require(store.strings.strings != folded, "the fixture must number strings differently when rebuilt")
        #expect(try before.revenue(from: from, to: to, by: .day, byProduct: true, scope: scope) == revenue)
        #expect(try MarchScenario.ids.map { try before.history($0) } == histories)
        #expect(try MarchScenario.ids.map { try store.reader.history($0) } == histories)
    }

    @Test("a fold after another process sealed the database removes that seal first, so the file never changes under a seal")
    func foldRemovesAnotherProcessesSeal() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(Array(events[..<10]))
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        try data.append([events[10]])
        try store.catchUp()
        // As a command does that finds the log free while a server, closing, folds on.
        try LMDBFileSeal.seal(store.snapshotPath)
        try data.append(Array(events[11...]))
        try store.catchUp()
        #expect(throws: Never.self) { try LMDBFileSeal.check(store.snapshotPath) }
        try store.seal()
        #expect(LMDBFileSeal.isSealed(store.snapshotPath))
        #expect(throws: Never.self) { try LMDBFileSeal.check(store.snapshotPath) }
    }

    @Test("a rebuild switches CURRENT to a new database and removes the one it replaced once this store has closed it: a ledger at rest holds one database")
    func switching() throws {
        let data = try DataDirectory()
        try data.append(MarchScenario().events)
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        #expect(try data.current() == "snapshot-1")
        try store.rebuild()
        #expect(try data.current() == "snapshot-2")
        try store.rebuild()
        #expect(try data.current() == "snapshot-3")
        #expect(try data.entries() == ["CURRENT", "snapshot-3"])
        #expect(store.snapshotPath == data.projections + "/snapshot-3")
    }

    @Test("the database a ledger folds into and answers from is mapped for random access: a page a look-up or a fold touches is mapped alone, not with its cached neighbours, so the resident set grows by what is read")
    func foldedDatabaseMappedForRandomAccess() throws {
        let data = try DataDirectory()
        try data.append(MarchScenario().events)
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        let current = try #require(try SnapshotDirectory(path: data.projections).current())
        #expect(try MappedFileAdvice.randomAccess(of: current + "/data.mdb") == [true])
        withExtendedLifetime(store) {}
    }

    @Test("a rebuild in batches reads its scratch database whole and in key order, so its map keeps the kernel's readahead")
    func batchScratchKeepsReadahead() throws {
        let data = try DataDirectory()
        try data.append(MarchScenario().events)
        let scratch = data.path + "/scratch"
        var empty = Projection(rebuildingExpectedEvents: 0)
        _ = try ProjectionDatabase.write(&empty, settings: RollupSettings(), schemaVersion: ProjectionStore.schemaVersion, logIdentity: nil, to: scratch)
        let building = try ProjectionStore(building: scratch, logDirectory: data.log, settings: RollupSettings())
        #expect(try MappedFileAdvice.randomAccess(of: scratch + "/data.mdb") == [false])
        withExtendedLifetime(building) {}
    }

    @Test("subledger rebuild leaves one database at rest: the one it replaced is removed at the switch, unless a store has it open, which keeps answering until the next rebuild removes it")
    func rebuildLeavesOneDatabase() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(events)
        _ = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        _ = try ProjectionStore.rebuild(directory: data.projections, logDirectory: data.log, settings: RollupSettings())
        #expect(try data.entries() == ["CURRENT", "snapshot-2"])
        // A reader that read CURRENT before the switch: the old name is not made again.
        #expect(throws: (any Error).self) { try ProjectionDatabase(path: data.projections + "/snapshot-1", readOnly: false) }
        #expect(try data.entries() == ["CURRENT", "snapshot-2"])
        var reading: ProjectionStore? = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        _ = try ProjectionStore.rebuild(directory: data.projections, logDirectory: data.log, settings: RollupSettings())
        #expect(try data.entries() == ["CURRENT", "snapshot-2", "snapshot-3"])
        let answers = try #require(reading).reader.materialized()
        #expect(Answers(answers, ids: MarchScenario.ids) == Answers(TestLedger(events).projection, ids: MarchScenario.ids))
        reading = nil
        _ = try ProjectionStore.rebuild(directory: data.projections, logDirectory: data.log, settings: RollupSettings())
        #expect(try data.entries() == ["CURRENT", "snapshot-4"])
    }

    @Test("files beside the snapshots that only look like them (an LMDB tool's lock file) neither fail a rebuild nor are removed")
    func strayFilesBesideSnapshots() throws {
        let data = try DataDirectory()
        try data.append(MarchScenario().events)
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        // What `mdb_stat -n snapshot-1` and `mdb_stat -n projections.new-1` leave behind.
        for stray in ["snapshot-1-lock", "projections.new-1-lock"] {
            try Data([1]).write(to: URL(fileURLWithPath: data.projections + "/" + stray))
        }
        try store.rebuild()
        try store.rebuild()
        #expect(try data.current() == "snapshot-3")
        #expect(try data.entries() == ["CURRENT", "projections.new-1-lock", "snapshot-1-lock", "snapshot-3"])
    }

    @Test("a snapshot written with another schema version is rebuilt from the log")
    func schemaChange() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(events)
        let path = try ProjectionStore(directory: data.projections, logDirectory: data.log).snapshotPath
        do {
            let environment = try LMDBEnvironment(path: path, mapSize: 1 << 26)
            let meta = try environment.openDatabase(named: "meta", create: false)
            try environment.write { try $0.put(key: Array("schema".utf8), value: [0, 0, 0x03, 0xe7], in: meta) }
        }
        // As another version would have left it: its own checksum (here: none, which is accepted).
        try FileManager.default.removeItem(atPath: path + "/CHECKSUM")
        try {
            let reopened = try ProjectionStore(directory: data.projections, logDirectory: data.log)
            #expect(reopened.opening == .rebuilt(.schemaChanged(stored: 999, current: ProjectionStore.schemaVersion)))
            #expect(try data.current() == "snapshot-2")
            #expect(try data.entries() == ["CURRENT", "snapshot-2"], "the other version's database is removed at the switch: an upgrade leaves one")
            #expect(Answers(try reopened.reader.materialized(), ids: MarchScenario.ids) == Answers(TestLedger(events).projection, ids: MarchScenario.ids))
        }()
        #expect(try ProjectionStore(directory: data.projections, logDirectory: data.log).opening == .loaded)
    }

    @Test("a damaged snapshot is rebuilt from the log")
    func damagedSnapshot() throws {
        let data = try DataDirectory()
        try data.append(MarchScenario().events)
        let path = try ProjectionStore(directory: data.projections, logDirectory: data.log).snapshotPath
        try Data(repeating: 0x5a, count: 16384).write(to: URL(fileURLWithPath: path + "/data.mdb"))
        let reopened = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        guard case .rebuilt(.damaged) = reopened.opening else {
            Issue.record("expected a rebuild for damage, got \(reopened.opening)")
            return
        }
        #expect(reopened.eventsFolded == MarchScenario().events.count)
    }

    @Test("a database this user may not open is refused as permission denied, naming the directory, and nothing is rebuilt",
          .enabled(if: FileManager.default.fileExists(atPath: "/sys/kernel")))
    func databaseNotOpenable() throws {
        let data = try DataDirectory()
        try data.append(MarchScenario().events)
        let path = try ProjectionStore(directory: data.projections, logDirectory: data.log).snapshotPath
        // Root ignores file modes; sysfs refuses new files (LMDB's lock file) to everyone.
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/sys/kernel")
        let before = try FileManager.default.contentsOfDirectory(atPath: data.projections).sorted()

        let error = #expect(throws: ProjectionError.self) { try ProjectionStore(directory: data.projections, logDirectory: data.log) }
        guard case .accessDenied(let directory, _, _) = error?.kind else {
            Issue.record("expected accessDenied, got \(String(describing: error))")
            return
        }
        #expect(directory == data.projections)
        #expect(error?.description.contains("permission denied") == true)
        #expect(error?.description.contains("damaged") == false)
        #expect(try FileManager.default.contentsOfDirectory(atPath: data.projections).sorted() == before)
    }

    @Test("one flipped byte inside the snapshot's data file is caught by its checksum before LMDB reads it, and rebuilt")
    func flippedSnapshotByte() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(events)
        let path = try ProjectionStore(directory: data.projections, logDirectory: data.log).snapshotPath
        let file = URL(fileURLWithPath: path + "/data.mdb")
        var bytes = try Data(contentsOf: file)
        bytes[bytes.count / 2] ^= 0x10
        try bytes.write(to: file)
        let reopened = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        guard case .rebuilt(.damaged(let reason)) = reopened.opening else {
            Issue.record("expected a rebuild for damage, got \(reopened.opening)")
            return
        }
        #expect(reason.contains("checksum"))
        #expect(Answers((try reopened.reader.materialized()), ids: MarchScenario.ids) == Answers(TestLedger(events).projection, ids: MarchScenario.ids))
    }

    @Test("a sealed database that a live writer unseals and changes while it is being checked is opened as it is, not taken for damage")
    func unsealedWhileChecked() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(events)
        let path = try ProjectionStore(directory: data.projections, logDirectory: data.log).snapshotPath
        // Room past the pages in use, as a map written in place has, makes the check long enough
        // for the writer below to land in the middle of it.
        let file = path + "/data.mdb"
        let handle = try #require(FileHandle(forUpdatingAtPath: file))
        handle.seekToEndOfFile()
        handle.write(Data(count: 64 << 20))
        try handle.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        let crc = bytes.withUnsafeBytes { CRC32C.checksum($0) }
        try (String(crc, radix: 16) + "\n").write(toFile: path + "/CHECKSUM", atomically: false, encoding: .utf8)
        let writer = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            usleep(5_000)
            // As the fold does before its first write: unseal, then write.
            unlink(path + "/CHECKSUM")
            if let handle = FileHandle(forUpdatingAtPath: file) {
                handle.seek(toFileOffset: UInt64(bytes.count - 4096))
                handle.write(Data([1]))
                try? handle.close()
            }
            writer.signal()
        }
        let reopened = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        writer.wait()
        #expect(reopened.opening == .loaded)
        #expect(reopened.snapshotPath == path)
        #expect(Answers((try reopened.reader.materialized()), ids: MarchScenario.ids) == Answers(TestLedger(events).projection, ids: MarchScenario.ids))
    }

    @Test("a database folded into in place is sealed over the pages it uses: a byte changed in the room its map holds past them is no damage, as LMDB never reads it")
    func sealCoversThePagesInUse() throws {
        let events = MarchScenario().events
        let half = events.count / 2
        let data = try DataDirectory()
        try data.append(Array(events[..<half]))
        let path = try {
            let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
            try data.append(Array(events[half...]))
            try store.catchUp()
            try store.seal()
            return store.snapshotPath
        }()
        let file = path + "/data.mdb"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: file)[.size] as? Int)
        #expect(size >= 64 << 20, "the fold grew the map, and the file with it")
        let handle = try #require(FileHandle(forUpdatingAtPath: file))
        handle.seek(toFileOffset: UInt64(size - 4096))
        handle.write(Data([0xFF]))
        try handle.close()
        let reopened = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        #expect(reopened.opening == .loaded)
        #expect(Answers((try reopened.reader.materialized()), ids: MarchScenario.ids) == Answers(TestLedger(events).projection, ids: MarchScenario.ids))
    }

    @Test("CURRENT naming a snapshot that is not there is damage: rebuilt, saying so plainly, and nothing is made where it points")
    func currentNamesNothing() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(events)
        _ = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        try "snapshot-99\n".write(toFile: data.projections + "/CURRENT", atomically: true, encoding: .utf8)
        let reopened = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        guard case .rebuilt(.damaged(let detail)) = reopened.opening else { Issue.record("\(reopened.opening)"); return }
        #expect(detail.contains("CURRENT names") && detail.contains("snapshot-99, which is not there"), "\(detail)")
        #expect(!(try data.entries()).contains("snapshot-99"))
        #expect(reopened.eventsFolded == events.count)
    }

    @Test("a crash in the middle of a rebuild leaves the old database in use; the next rebuild clears the debris")
    func crashMidRebuild() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(events)
        let served = try ProjectionStore(directory: data.projections, logDirectory: data.log).snapshotPath
        let debris = data.projections + "/projections.new-7"
        try FileManager.default.createDirectory(atPath: debris, withIntermediateDirectories: true)
        try Data(repeating: 0, count: 8192).write(to: URL(fileURLWithPath: debris + "/data.mdb"))

        let reopened = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        #expect(reopened.opening == .loaded)
        #expect(reopened.snapshotPath == served)
        #expect(Answers((try reopened.reader.materialized()), ids: MarchScenario.ids) == Answers(TestLedger(events).projection, ids: MarchScenario.ids))

        try reopened.rebuild()
        #expect(try data.current() == "snapshot-8")
        #expect(try data.entries() == ["CURRENT", "snapshot-8"])
    }

    @Test("a snapshot from another log is detected and rebuilt")
    func logMismatch() throws {
        try withStoreOnAnotherLog { reopened in
            #expect(reopened.opening == .rebuilt(.logMismatch))
            #expect(reopened.eventsFolded == 5)
        }
    }

    @Test("another ledger's database whose checkpoint this log also has a record at is told by the log's first event, and rebuilt, not caught up from there")
    func anotherLedgersDatabase() throws {
        let events = MarchScenario().events
        let ledger = try DataDirectory()
        try ledger.append(events)
        let other = try DataDirectory()
        try other.append([events[events.count - 1]])
        // Its one record sits where this log's first does: the checkpoint alone matches.
        #expect(try ProjectionStore(directory: other.projections, logDirectory: other.log).eventsFolded == 1)
        let opened = try ProjectionStore(directory: other.projections, logDirectory: ledger.log)
        #expect(opened.opening == .rebuilt(.logMismatch))
        #expect(opened.eventsFolded == events.count)
        #expect(Answers(try opened.reader.materialized(), ids: MarchScenario.ids) == Answers(TestLedger(events).projection, ids: MarchScenario.ids))
    }

    @Test("opening folds the log beyond the checkpoint into the same database, in place")
    func catchUpInPlace() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(Array(events[..<10]))
        #expect(try ProjectionStore(directory: data.projections, logDirectory: data.log).eventsFolded == 10)
        try data.append(Array(events[10...]))
        let before = try data.entries()
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        #expect(store.opening == .loaded)
        #expect(store.eventsFolded == events.count)
        #expect(try data.entries() == before)
        #expect(Answers(try store.reader.materialized(), ids: MarchScenario.ids) == Answers(TestLedger(events).projection, ids: MarchScenario.ids))
    }

    @Test("records of other kinds are skipped; an event record that does not decode is an error")
    func recordKinds() throws {
        let data = try DataDirectory()
        try data.appendRaw(LogRecord(kind: 2, payload: Array("verbatim signed payload".utf8)))
        try data.append(Array(MarchScenario().events.prefix(3)))
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        #expect(store.eventsFolded == 3)

        try data.appendRaw(LogRecord(kind: EventRecord.kind, payload: [1, 2, 3, 4, 5, 6, 7, 8, 0xff, 0xff, 1]))
        #expect(throws: ProjectionError.self) { try store.catchUp() }
    }
}

@Suite("Reading every timeline")
struct ReadingEveryTimelineTests {
    @Test("the export's reads before a position answer as a database that folded only the events before it: an export beside a server that ingests is of one moment")
    func exportReadsBeforeAPosition() throws {
        let workload = try SimulatedWorkload(seed: 5, customers: 120, months: 6)
        var events = workload.inputs.map(\.event)
        // A subscription bought without a token, which its renewal after the position brings.
        var apple = Notifier()
        let (bare, tokened) = (Subscriber("91000001"), Subscriber("91000001", token: "5d1c2a9e-3f4b-4c6d-8e7f-0a1b2c3d4e5f"))
        let bought = at("2026-02-01")
        let half = events.count / 2 + 1
        events.insert(apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: bought,
                                         transaction: bare.transaction("91000001", purchased: bought, expires: bought + 30 * 86_400_000)), at: half - 1)
        events.append(apple.notification("DID_RENEW", signed: bought + 30 * 86_400_000,
                                         transaction: tokened.transaction("91000002", purchased: bought + 30 * 86_400_000, expires: bought + 60 * 86_400_000)))
        let (whole, part) = (try DataDirectory(), try DataDirectory())
        let positions = try whole.append(events)
        try part.append(Array(events[..<half]))
        let later = try ProjectionStore(directory: whole.projections, logDirectory: whole.log)
        let earlier = try ProjectionStore(directory: part.projections, logDirectory: part.log)
        let window = UTCDay("2026-01-01")!.start..<UTCDay("2026-07-01")!.start
        func read(_ store: ProjectionStore, before position: LogPosition) throws -> (transactions: [ExportedTransaction], subscriptions: [String: SubscriptionState]) {
            var transactions: [ExportedTransaction] = []
            var subscriptions: [String: SubscriptionState] = [:]
            try store.reader.forEachTransaction(in: window, before: position) { transactions.append($0) }
            // With its customer: a token recorded after the position must not name it.
            try store.reader.forEachSubscription(at: window.upperBound - 1, before: position) { subscriptions[$0 + " " + $1.originalTransactionId] = $1 }
            return (transactions, subscriptions)
        }
        let atHalf = try read(later, before: positions[half])
        let folded = try read(earlier, before: LogPosition(rawValue: .max))
        #expect(!folded.transactions.isEmpty && !folded.subscriptions.isEmpty)
        #expect(atHalf.transactions.sorted { $0.transactionId < $1.transactionId } == folded.transactions.sorted { $0.transactionId < $1.transactionId })
        #expect(atHalf.subscriptions == folded.subscriptions)
        #expect(try read(later, before: LogPosition(rawValue: .max)).transactions.count > folded.transactions.count)
    }

    @Test("a read of every timeline hands the database's pages back as it goes (every 4,096 timelines, mid-cursor) and answers as the fold does")
    func pagesHandedBackMidRead() throws {
        var apple = Notifier()
        let subscribers = ProjectionReader.releaseEvery + 900
        let events = (0..<subscribers).map { index in
            let sub = Subscriber("\(20_000 + index)")
            let start = at("2026-01-01") + Int64(index) * 60_000
            return apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: start,
                                      transaction: sub.transaction(sub.originalTransactionId, purchased: start, expires: start + 30 * 86_400_000))
        }
        let data = try DataDirectory()
        let positions = try data.append(events)
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        // Reports at a position see the events before it: past the last, all of them.
        let scope = ReportScope(environment: .production, atPosition: LogPosition(rawValue: positions.last!.rawValue + 1))
        let (from, to) = (UTCDay("2026-01-01")!, UTCDay("2026-02-28")!)
        // The whole log, folded in memory (its own positions differ from the log's).
        let folded = TestLedger(events).projection
        let whole = ReportScope(environment: .production)
        let revenue = try store.reader.revenue(from: from, to: to, scope: scope)
        #expect(revenue == folded.revenue(from: from, to: to, scope: whole))
        #expect(revenue.rows.map(\.transactions).reduce(0, +) == subscribers)
        #expect(try store.reader.mrr(at: at("2026-01-20"), scope: scope) == folded.mrr(at: at("2026-01-20"), scope: whole))
        var transactions = 0
        try store.reader.forEachTransaction(in: from.start..<to.start, before: LogPosition(rawValue: .max)) { _ in transactions += 1 }
        #expect(transactions == subscribers)
        // What the caller's own work throws (an export file on a full disk) comes back as it was,
        // not as the database's failure, which sent the user to `rebuild`.
        struct DiskFull: Error {}
        #expect(throws: DiskFull.self) { try store.reader.forEachTransaction(in: from.start..<to.start, before: LogPosition(rawValue: .max)) { _ in throw DiskFull() } }
        #expect(throws: DiskFull.self) { try store.reader.forEachSubscription(at: to.start, before: LogPosition(rawValue: .max)) { _, _ in throw DiskFull() } }
        // A command shows how far a report at a position has come: told after each part.
        let told = Mutex<[Int]>([])
        var reader = store.reader
        reader.timelinesFolded = { folded in told.withLock { $0.append(folded) } }
        let churn = try reader.churn(from: from, to: to, scope: scope)
        #expect(churn == folded.churn(from: from, to: to, scope: whole))
        #expect(told.withLock { $0 } == [subscribers])
    }
}
