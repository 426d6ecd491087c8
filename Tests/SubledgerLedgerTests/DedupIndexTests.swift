import Dispatch
import Foundation
import SubledgerEvents
import SubledgerLog
import SubledgerLMDB
import SubledgerProjections
import SubledgerSimulator
import SubledgerTestSupport
import Synchronization
import Testing
@testable import SubledgerLedger

/// The dedup index survives restarts without reading history, heals what a crash left out, and is
/// rebuilt from the logs whenever it cannot be trusted: a message counts as known exactly when
/// its event is in the log.
@Suite("Ledger: the persistent dedup index")
struct DedupIndexTests {
    let directory = TemporaryDirectory()
    let lines: [IngestLine]

    init() throws {
        let configuration = Simulator.Configuration(customers: 30, months: 3, seed: 7, start: "2026-01-01", duplicates: 0, reorder: 0)
        _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
        lines = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8)
            .split(separator: "\n").enumerated().map { IngestLine(bytes: Array($1.utf8), line: $0 + 1, source: "sim") }
    }

    func open(_ name: String = "data") throws -> Ledger {
        let data = directory.file(name)
        if !FileManager.default.fileExists(atPath: data) {
            _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                      rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        }
        return try Ledger(directory: data)
    }

    /// Ingests `lines` into a freshly opened ledger and closes it; returns how many were appended.
    @discardableResult
    func ingest(_ lines: some Collection<IngestLine>, into name: String = "data") throws -> Int {
        let ledger = try open(name)
        defer { ledger.close() }
        return try ledger.ingest(Array(lines), recordedAt: 1).filter { if case .appended = $0 { true } else { false } }.count
    }

    func allDuplicates(_ lines: some Collection<IngestLine>, in ledger: Ledger) throws -> Bool {
        try ledger.ingest(Array(lines), recordedAt: 2).allSatisfy { $0.isDuplicate }
    }

    func events(in name: String = "data") throws -> UInt64 {
        try LogReader(directory: DataDirectoryLayout(directory.file(name)).log).summary().records
    }

    @Test("an index damaged at rest fails the checksum of its clean close and is built again from the logs: nothing is appended twice, nothing crashes")
    func damagedAtRestIsRebuilt() throws {
        try ingest(lines)
        let index = DataDirectoryLayout(directory.file("data")).dedupIndex
        #expect(FileManager.default.fileExists(atPath: index + "/CHECKSUM"))
        // A damaged page among the keys: LMDB itself would read it as it stands.
        let file = try FileHandle(forUpdating: URL(fileURLWithPath: index + "/data.mdb"))
        try file.seek(toOffset: 16384)
        try file.write(contentsOf: Array(repeating: UInt8(ascii: "Z"), count: 512))
        try file.close()
        let ledger = try open()
        defer { ledger.close() }
        guard case .unreadable(let why)? = ledger.pipeline.index.recovery.rebuilt else {
            Issue.record("the index was trusted: \(ledger.pipeline.index.recovery)")
            return
        }
        #expect(why.contains("checksum"))
        #expect(try allDuplicates(lines, in: ledger))
        #expect(try events() == UInt64(lines.count))
    }

    @Test("reopening a ledger dedups everything ingested before, and reads no record of either log to do so")
    func reopenReadsNothing() throws {
        #expect(lines.count > 60)
        try ingest(lines.prefix(40))
        try ingest(lines.dropFirst(40))
        let ledger = try open()
        defer { ledger.close() }
        #expect(ledger.pipeline.index.recovery == DedupIndex.Recovery())
        #expect(try allDuplicates(lines, in: ledger))
        #expect(try events() == UInt64(lines.count))
    }

    @Test("a crash between the event append and the index commit is healed at the next open, which reads only the events after the index's checkpoint")
    func crashBeforeIndexCommit() throws {
        let layout = DataDirectoryLayout(directory.file("data"))
        try ingest(lines.prefix(40))
        let saved = directory.file("dedup-after-40")
        try FileManager.default.copyItem(atPath: layout.dedupIndex, toPath: saved)
        let tail = try ingest(lines.dropFirst(40))
        // The index as it was before the second batch was committed to it.
        try FileManager.default.removeItem(atPath: layout.dedupIndex)
        try FileManager.default.copyItem(atPath: saved, toPath: layout.dedupIndex)

        let ledger = try open()
        defer { ledger.close() }
        #expect(ledger.pipeline.index.recovery.rebuilt == nil)
        #expect(ledger.pipeline.index.recovery.eventsRead == tail)
        #expect(try allDuplicates(lines, in: ledger))
        #expect(try events() == UInt64(lines.count))
    }

    @Test("evidence written without its event (a crash between the two appends) does not make the message known")
    func evidenceWithoutEvent() throws {
        try ingest(lines.prefix(10))
        var ledger = try open()
        let orphan = try ledger.pipeline.preparer.prepare(lines[10]).get()
        _ = try ledger.pipeline.evidence.write([orphan])
        try ledger.pipeline.evidence.sync()
        ledger.close()

        ledger = try open()
        #expect(ledger.pipeline.index.recovery.evidenceRead > 0)
        #expect(try ledger.ingest(lines[10], recordedAt: 2).isDuplicate == false)
        ledger.close()
        // Built from the whole logs, the index agrees.
        try FileManager.default.removeItem(atPath: ledger.layout.dedupIndex)
        ledger = try open()
        defer { ledger.close() }
        #expect(ledger.pipeline.index.recovery.rebuilt == .missing)
        #expect(try allDuplicates(lines.prefix(11), in: ledger))
        #expect(try events() == 11)
    }

    @Test("events whose evidence a system crash lost (both logs sync at once) are cut at the next open, and their messages are appended again")
    func eventsWithoutEvidenceAreCut() throws {
        try ingest(lines.prefix(20))
        try ingest(lines[20..<25])
        let layout = DataDirectoryLayout(directory.file("data"))
        var firstOfLastBatch: UInt64?
        var index = 0
        try LogReader(directory: layout.log).scan { entry in
            if index == 20 {
                firstOfLastBatch = try EventRecord.split(entry.payload).map { try EventView($0.event).evidence.position }
            }
            index += 1
            return true
        }
        // The machine stopped with the last batch's events on disk but not its evidence: the
        // evidence log ends before it, and the index and projections (written after both
        // syncs) never had it.
        let segments = try FileManager.default.contentsOfDirectory(atPath: layout.evidence).filter { $0.hasSuffix(".seg") }
        #expect(segments.count == 1)
        let handle = try #require(FileHandle(forWritingAtPath: layout.evidence + "/" + segments[0]))
        try handle.truncate(atOffset: try #require(firstOfLastBatch))
        try handle.close()
        try FileManager.default.removeItem(atPath: layout.dedupIndex)
        // Nor were the logs closed: no clean-close marker vouches for their ends.
        for log in [layout.log, layout.evidence] { try? FileManager.default.removeItem(atPath: log + "/CLOSED") }
        try FileManager.default.removeItem(atPath: layout.projections)

        let ledger = try open()
        defer { ledger.close() }
        #expect(try events() == 20)
        #expect(try allDuplicates(lines.prefix(20), in: ledger))
        #expect(try ledger.ingest(Array(lines[20..<25]), recordedAt: 2).allSatisfy { if case .appended = $0 { true } else { false } })
        #expect(try events() == 25)
        #expect(try LogReader(directory: layout.log).verify().ok)
        #expect(try LogReader(directory: layout.evidence).verify().ok)
    }

    func positions(_ outcomes: [IngestOutcome]) -> [String?] {
        outcomes.map { if case .appended(let position) = $0 { position } else if case .duplicate(let position) = $0 { position } else { nil } }
    }

    @Test("a bare copy of a stored notification's signed transaction is a duplicate of the notification, also once the index is rebuilt from the logs and within one batch")
    func bareCopyOfNestedTransactionIsDuplicate() throws {
        let bare = try lines.compactMap { try $0.nestedTransaction() }
        #expect(bare.count > 50)
        var ledger = try open()
        let stored = positions(try ledger.ingest(lines, recordedAt: 1))
        let storedOf = Dictionary(zip(lines.map(\.line), stored), uniquingKeysWith: { first, _ in first })
        let records = try events()
        // Each answers with its notification's event (a renewal's transaction was already
        // delivered by an earlier notification only when the two signed it identically).
        let again = try ledger.ingest(bare, recordedAt: 2)
        #expect(again.allSatisfy { $0.isDuplicate })
        #expect(zip(bare, positions(again)).filter { storedOf[$0.line] == $1 }.count == bare.count)
        ledger.close()
        #expect(try events() == records)

        try FileManager.default.removeItem(atPath: DataDirectoryLayout(directory.file("data")).dedupIndex)
        ledger = try open()
        #expect(ledger.pipeline.index.recovery.rebuilt == .missing)
        #expect(positions(try ledger.ingest(bare, recordedAt: 3)) == positions(again))
        ledger.close()

        // The notification and its copy in one batch: the copy waits for the notification's position.
        let pairs = Array(zip(lines.suffix(20), try lines.suffix(20).compactMap { try $0.nestedTransaction() }).flatMap { [$0, $1] })
        ledger = try open("one batch")
        defer { ledger.close() }
        let outcomes = positions(try ledger.ingest(pairs, recordedAt: 1))
        #expect(stride(from: 0, to: pairs.count, by: 2).allSatisfy { outcomes[$0] != nil && outcomes[$0] == outcomes[$0 + 1] })
    }

    @Test("a signed transaction stored bare before its notification keeps answering its repeats with its own position, also once the index is rebuilt")
    func bareTransactionBeforeNotificationKeepsItsPosition() throws {
        let bare = try lines.compactMap { try $0.nestedTransaction() }
        var ledger = try open()
        let first = positions(try ledger.ingest(bare, recordedAt: 1))
        #expect(first.allSatisfy { $0 != nil })
        // Notifications are known by their UUID: each is new.
        #expect(try ledger.ingest(lines, recordedAt: 2).allSatisfy { !$0.isDuplicate })
        #expect(positions(try ledger.ingest(bare, recordedAt: 3)) == first)
        ledger.close()
        try FileManager.default.removeItem(atPath: DataDirectoryLayout(directory.file("data")).dedupIndex)
        ledger = try open()
        defer { ledger.close() }
        #expect(positions(try ledger.ingest(bare, recordedAt: 4)) == first)
    }

    @Test("a data directory without an index (written by an older version) builds it once from the logs")
    func olderDirectory() throws {
        try ingest(lines)
        try FileManager.default.removeItem(atPath: DataDirectoryLayout(directory.file("data")).dedupIndex)
        var ledger = try open()
        #expect(ledger.pipeline.index.recovery == DedupIndex.Recovery(eventsRead: lines.count, evidenceRead: ledger.pipeline.index.recovery.evidenceRead, rebuilt: .missing))
        #expect(try allDuplicates(lines, in: ledger))
        ledger.close()
        ledger = try open()
        defer { ledger.close() }
        #expect(ledger.pipeline.index.recovery == DedupIndex.Recovery())
    }

    @Test("an index built from an evidence log of many segments, its halves read by two threads, answers every message and bare transaction as the index ingestion wrote")
    func rebuiltFromManySegments() throws {
        let bare = try lines.compactMap { try $0.nestedTransaction() }
        _ = try open().close()
        let data = directory.file("data")
        let small = LogOptions(segmentSize: 16 << 10, preallocationStep: 0)
        var ledger = try Ledger(directory: data, logOptions: small)
        for start in stride(from: 0, to: lines.count, by: 25) {
            _ = try ledger.ingest(Array(lines[start..<min(start + 25, lines.count)]), recordedAt: 1)
        }
        let answers = try ledger.ingest(lines + bare, recordedAt: 2)
        #expect(answers.allSatisfy { $0.isDuplicate })
        ledger.close()
        #expect(try LogReader(directory: DataDirectoryLayout(data).evidence).segmentStarts().count >= 4)

        try FileManager.default.removeItem(atPath: DataDirectoryLayout(data).dedupIndex)
        ledger = try Ledger(directory: data, logOptions: small)
        defer { ledger.close() }
        #expect(ledger.pipeline.index.recovery.rebuilt == .missing)
        #expect(positions(try ledger.ingest(lines + bare, recordedAt: 3)) == positions(answers))
    }

    @Test("an index copied from another data directory is rebuilt from this directory's logs")
    func indexFromAnotherDirectory() throws {
        try ingest(lines.prefix(50), into: "a")
        try ingest(lines.dropFirst(50), into: "b")
        let (a, b) = (DataDirectoryLayout(directory.file("a")), DataDirectoryLayout(directory.file("b")))
        try FileManager.default.removeItem(atPath: b.dedupIndex)
        try FileManager.default.copyItem(atPath: a.dedupIndex, toPath: b.dedupIndex)

        let ledger = try open("b")
        defer { ledger.close() }
        #expect(ledger.pipeline.index.recovery.rebuilt == .otherLogs)
        #expect(try allDuplicates(lines.dropFirst(50), in: ledger))
        #expect(try ledger.ingest(Array(lines.prefix(50)), recordedAt: 2).allSatisfy { !$0.isDuplicate })
    }

    @Test("a damaged index file is rebuilt from the logs")
    func damagedIndex() throws {
        try ingest(lines)
        let file = DataDirectoryLayout(directory.file("data")).dedupIndex + "/data.mdb"
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: file)))
        for offset in stride(from: 0, to: min(bytes.count, 3 * 4096), by: 7) { bytes[offset] ^= 0x5A }  // both meta pages
        try Data(bytes).write(to: URL(fileURLWithPath: file))

        let ledger = try open()
        defer { ledger.close() }
        #expect(ledger.pipeline.index.recovery.rebuilt.map { if case .unreadable = $0 { true } else { false } } == true)
        #expect(try allDuplicates(lines, in: ledger))
    }

    @Test("an index the machine stopped under (open in an earlier boot) is rebuilt; one a process crash left open on this boot is trusted")
    func sessionMark() throws {
        try ingest(lines)
        let path = DataDirectoryLayout(directory.file("data")).dedupIndex
        func markOpen(boot: [UInt8]?) throws {
            // As an open does: the clean close's checksum goes before the first write.
            try LMDBFileSeal.unseal(path)
            let storage = try DedupIndex.Storage(path: path)
            try storage.environment.write { txn in try storage.putSession(boot, in: txn) }
        }
        try markOpen(boot: DedupIndex.bootID())
        var ledger = try open()
        #expect(ledger.pipeline.index.recovery == DedupIndex.Recovery())
        ledger.close()

        try markOpen(boot: Array("an earlier boot".utf8))
        ledger = try open()
        defer { ledger.close() }
        #expect(ledger.pipeline.index.recovery.rebuilt == .systemCrash)
        #expect(try allDuplicates(lines, in: ledger))
    }

    @Test("an index built in the background refuses look-ups until it is built, then hands the evidence its header table and knows every message stored before")
    func builtInTheBackground() throws {
        let ledger = try open()
        let stored = positions(try ledger.ingest(lines, recordedAt: 1))
        let keys = try lines.map { try ledger.pipeline.preparer.prepare($0).get().key }
        ledger.close()
        let layout = DataDirectoryLayout(directory.file("data"))
        try FileManager.default.removeItem(atPath: layout.dedupIndex)

        let release = DispatchSemaphore(value: 0)
        let tables = Mutex<[[HeaderKey: UInt64]]>([])
        let index = try DedupIndex(
            path: layout.dedupIndex, eventLog: LogReader(directory: layout.log), evidenceLog: LogReader(directory: layout.evidence),
            buildingInBackground: true
        ) { table in
            tables.withLock { $0.append(table) }
            // Held here, before the index answers, so that the test sees it building.
            _ = release.wait(timeout: .now() + 30)
        }
        defer { index.close() }
        let building = try #require(index.unavailable)
        #expect(building.failure == nil)
        #expect(building.description.contains("being built from the logs (\(DedupIndex.RebuildReason.missing))"))
        #expect(throws: IngestionUnavailable.self) { try index.positions(of: [keys[0]]) }
        #expect(index.recovery.rebuilt == .missing)

        release.signal()
        try index.waitUntilOpen()
        #expect(index.unavailable == nil)
        #expect(index.recovery.eventsRead == lines.count)
        let handed = tables.withLock { $0 }
        #expect(handed.count == 1 && handed.first?.isEmpty == false)
        #expect(try index.positions(of: keys).map { $0?.description } == stored)
    }

    @Test("closing an index while it is built in the background waits for the build and seals it, so the next open reads nothing")
    func closeWaitsForTheBuild() throws {
        try ingest(lines)
        let layout = DataDirectoryLayout(directory.file("data"))
        try FileManager.default.removeItem(atPath: layout.dedupIndex)
        let (eventLog, evidenceLog) = (LogReader(directory: layout.log), LogReader(directory: layout.evidence))
        let release = DispatchSemaphore(value: 0)
        let index = try DedupIndex(path: layout.dedupIndex, eventLog: eventLog, evidenceLog: evidenceLog, buildingInBackground: true) { _ in
            _ = release.wait(timeout: .now() + 30)
        }
        let closed = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            index.close()
            closed.signal()
        }
        #expect(closed.wait(timeout: .now() + 0.5) == .timedOut)
        release.signal()
        try #require(closed.wait(timeout: .now() + 30) == .success)
        #expect(FileManager.default.fileExists(atPath: layout.dedupIndex + "/" + LMDBFileSeal.fileName))

        let reopened = try DedupIndex(path: layout.dedupIndex, eventLog: eventLog, evidenceLog: evidenceLog)
        defer { reopened.close() }
        #expect(reopened.recovery == DedupIndex.Recovery())
    }

    @Test("a server's ledger whose index must be built holds webhook messages that come meanwhile until it is built, then stores and deduplicates them; reads are answered at once, and a batch waits")
    func serverLedgerBuildsInTheBackground() throws {
        try ingest(lines.prefix(60))
        let layout = DataDirectoryLayout(directory.file("data"))
        try FileManager.default.removeItem(atPath: layout.dedupIndex)

        let ledger = try Ledger(directory: directory.file("data"), rebuildingInBackground: true)
        defer { ledger.close() }
        // At once, while the build has barely begun: held until it is done, not refused.
        let held = Mutex<[Int: Result<IngestOutcome, any Error>]>([:])
        let answered = DispatchSemaphore(value: 0)
        for index in [60, 5] {
            ledger.ingest(lines[index], recordedAt: 2) { result in
                held.withLock { $0[index] = result }
                answered.signal()
            }
        }
        // Read as it stands: the projection database needs nothing of the index.
        #expect(try ledger.read { _ in ledger.foldedEvents } == Int(try events()))
        // A batch waits for the build rather than failing.
        #expect(try allDuplicates(lines.prefix(60), in: ledger))
        for _ in 0..<2 { try #require(answered.wait(timeout: .now() + 30) == .success) }
        let outcomes = held.withLock { $0 }
        #expect(try outcomes[60]?.get().isDuplicate == false)
        #expect(try outcomes[5]?.get().isDuplicate == true)
        #expect(ledger.ingestionUnavailable == nil)
        #expect(ledger.pipeline.index.recovery.rebuilt == .missing)
        #expect((try? Self.ingestionOpened(ledger).get()) != nil)
        #expect(try ledger.ingest(lines[3], recordedAt: 2).isDuplicate)
        #expect(try ledger.ingest(lines[61], recordedAt: 2).isDuplicate == false)
        #expect(try events() == 62)
    }

    @Test("a server's ledger whose index build meets a damaged record refuses every message with why, keeps answering reads, and closes")
    func serverLedgerBuildFailing() throws {
        _ = try open().close()
        let data = directory.file("data")
        let small = LogOptions(segmentSize: 4 << 10, preallocationStep: 0)
        // In a scope of its own: the next open of the same projection database needs this one let go.
        do {
            let ledger = try Ledger(directory: data, logOptions: small)
            defer { ledger.close() }
            for start in stride(from: 0, to: 60, by: 20) {
                _ = try ledger.ingest(Array(lines[start..<start + 20]), recordedAt: 1)
            }
        }
        let layout = DataDirectoryLayout(data)
        // In the first event segment, which is sealed, past its first record (which tells the
        // projection database's log): only a build from the whole logs reads it.
        let segments = try FileManager.default.contentsOfDirectory(atPath: layout.log).filter { $0.hasSuffix(".seg") }.sorted()
        try #require(segments.count >= 2)
        try flipByte(in: layout.log + "/" + segments[0], at: 1_000)
        try FileManager.default.removeItem(atPath: layout.dedupIndex)

        let ledger = try Ledger(directory: data, logOptions: small, rebuildingInBackground: true)
        defer { ledger.close() }
        let result = try Self.ingestionOpened(ledger)
        guard case .failure(let failed) = result, case LogError.corrupted(let problem)? = failed.failure else {
            Issue.record("the build did not fail on the damaged segment: \(result)")
            return
        }
        #expect(problem.file.hasSuffix(segments[0]))
        #expect(ledger.ingestionUnavailable?.failure != nil)
        #expect(throws: IngestionUnavailable.self) { try ledger.ingest(lines[60], recordedAt: 2) }
        #expect(throws: IngestionUnavailable.self) { try ledger.ingest(Array(lines[60..<62]), recordedAt: 2) }
        #expect(try ledger.read { _ in ledger.foldedEvents } == Int(try events()))
    }

    /// What `ledger.whenIngestionOpen` tells, within 30 s.
    static func ingestionOpened(_ ledger: Ledger) throws -> Result<Void, IngestionUnavailable> {
        let opened = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Void, IngestionUnavailable>?>(nil)
        ledger.whenIngestionOpen { outcome in
            result.withLock { $0 = outcome }
            opened.signal()
        }
        try #require(opened.wait(timeout: .now() + 30) == .success)
        return try #require(result.withLock { $0 })
    }
}
