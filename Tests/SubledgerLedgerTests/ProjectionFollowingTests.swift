import Dispatch
import Synchronization
import Foundation
import SubledgerCore
import SubledgerEvents
import SubledgerLog
import SubledgerProjections
import SubledgerSimulator
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

/// The projection follows ingestion in the background: reads see every acknowledged message,
/// webhook messages are acknowledged once folded so that reads never wait for a fold, a read in
/// progress never holds up an acknowledgement, and snapshots are written as it goes.
@Suite("Ledger: projections follow ingestion")
struct ProjectionFollowingTests {
    let directory = TemporaryDirectory()
    let lines: [[UInt8]]

    init() throws {
        let configuration = Simulator.Configuration(customers: 30, months: 3, seed: 11, start: "2026-01-01", duplicates: 0, reorder: 0)
        _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
        lines = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8).split(separator: "\n").map { Array($0.utf8) }
    }

    func ledger(snapshotEveryEvents: Int = 500_000) throws -> Ledger {
        let data = directory.file("data")
        if !FileManager.default.fileExists(atPath: data) {
            _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                      rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        }
        return try Ledger(directory: data, snapshotEveryEvents: snapshotEveryEvents)
    }

    /// Every simulated line as one batch.
    var batch: [IngestLine] { lines.enumerated().map { IngestLine(bytes: $1, line: $0 + 1, source: "test") } }

    /// The batch's two halves, both handed to verification, the second marked last or not.
    func verifyHalves(_ ledger: Ledger, secondIsLast: Bool) -> (BatchVerification, BatchVerification) {
        let batch = batch
        let half = batch.count / 2
        return (ledger.verify(Array(batch[..<half])), ledger.verify(Array(batch[half...]), last: secondIsLast))
    }

    func webhook(_ ledger: Ledger, _ index: Int) throws -> IngestOutcome {
        try ledger.ingest(IngestLine(bytes: lines[index], line: index + 1, source: "test"), recordedAt: 0)
    }

    @Test("a read right after a batch is ingested sees it, even while the background fold is held up")
    func readYourBatch() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let release = DispatchSemaphore(value: 0)
        ledger.projections.folding.async { release.wait() }  // the background fold cannot run until released
        _ = try ledger.ingest(batch, recordedAt: 0)
        let folded = try ledger.read { try $0.projections.summary().notifications }
        #expect(folded == lines.count)
        release.signal()
    }

    @Test("a batch stored while the next one verifies is folded with it, once nothing more is coming")
    func batchesFoldTogether() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let (first, second) = verifyHalves(ledger, secondIsLast: false)
        _ = try ledger.ingest(first, recordedAt: 0)
        ledger.projections.folding.sync {}
        #expect(ledger.foldedEvents == 0, "the first batch was folded alone while the second was on its way")
        _ = try ledger.ingest(second, recordedAt: 0)
        ledger.projections.folding.sync {}
        let folded = ledger.foldedEvents
        _ = try ledger.read { try $0.projections.summary() }
        #expect(folded > 0 && ledger.foldedEvents == folded, "the background fold left events for the read to fold")
    }

    @Test("a batch stored while only the last one verifies is folded at once, so the last is folded alone")
    func theLastBatchIsFoldedAlone() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let (first, last) = verifyHalves(ledger, secondIsLast: true)
        _ = try ledger.ingest(first, recordedAt: 0)
        ledger.projections.folding.sync {}
        let foldedFirst = ledger.foldedEvents
        #expect(foldedFirst > 0, "the batch before the last waited to be folded with it")
        _ = try ledger.ingest(last, recordedAt: 0)
        ledger.projections.folding.sync {}
        #expect(ledger.foldedEvents > foldedFirst)
    }

    @Test("a batch stored with no other verifying is folded in the background")
    func aLoneBatchIsFolded() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        _ = try ledger.ingest(batch, recordedAt: 0)
        ledger.projections.folding.sync {}
        let folded = ledger.foldedEvents
        _ = try ledger.read { try $0.projections.summary() }
        #expect(folded > 0 && ledger.foldedEvents == folded)
    }

    @Test("a webhook message is acknowledged only once the background fold has committed it")
    func webhookWaitsForTheFold() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let release = DispatchSemaphore(value: 0)
        ledger.projections.folding.async { release.wait() }
        let acknowledged = DispatchSemaphore(value: 0)
        let foldedAtAcknowledgement = Mutex<Int?>(nil)
        let line = lines[0]
        // A thread of its own: under a loaded parallel run Dispatch's pool may be slow to start it.
        Thread.detachNewThread {
            _ = try? ledger.ingest(IngestLine(bytes: line, line: 1, source: "test"), recordedAt: 0)
            foldedAtAcknowledgement.withLock { $0 = ledger.foldedEvents }
            acknowledged.signal()
        }
        #expect(acknowledged.wait(timeout: .now() + 0.5) == .timedOut, "acknowledged before the fold ran")
        release.signal()
        #expect(acknowledged.wait(timeout: .now() + 60) == .success)
        #expect(foldedAtAcknowledgement.withLock { $0 } == 1)
    }

    @Test("a read does not wait for the fold of a webhook message that is not acknowledged yet")
    func readsDoNotWaitForUnacknowledgedMessages() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        _ = try webhook(ledger, 0)
        let release = DispatchSemaphore(value: 0)
        ledger.projections.folding.async { release.wait() }
        let acknowledged = DispatchSemaphore(value: 0)
        let line = lines[1]
        Thread.detachNewThread {
            _ = try? ledger.ingest(IngestLine(bytes: line, line: 2, source: "test"), recordedAt: 0)
            acknowledged.signal()
        }
        // The message is appended (or about to be) but its acknowledgement waits for the fold,
        // so the read answers from what is committed, at once.
        let folded = try ledger.read { try $0.projections.summary().notifications }
        #expect(folded == 1)
        release.signal()
        #expect(acknowledged.wait(timeout: .now() + 60) == .success)
        #expect(try ledger.read { try $0.projections.summary().notifications } == 2)
    }

    @Test("a webhook message is acknowledged while a read holds the projection")
    func readsDoNotBlockIngestion() throws {
        let ledger = try ledger()
        defer { ledger.close() }
        let acknowledged = DispatchSemaphore(value: 0)
        let outcome = Mutex<IngestOutcome?>(nil)
        let line = lines[0]
        let finished = try ledger.read { _ in
            DispatchQueue.global().async {
                let result = try? ledger.ingest(IngestLine(bytes: line, line: 1, source: "test"), recordedAt: 0)
                outcome.withLock { $0 = result }
                acknowledged.signal()
            }
            return acknowledged.wait(timeout: .now() + 60) == .success
        }
        #expect(finished, "the acknowledgement waited for the read to end")
        #expect(outcome.withLock { $0 }.map { if case .appended = $0 { true } else { false } } == true)
    }

    @Test("a read that folds beside a process holding the log leaves the database unsealed, for that process writes on under any seal; alone, it seals")
    func readBesideAWriterLeavesTheSealOff() throws {
        try {
            let ledger = try ledger()
            for index in 0..<lines.count { _ = try webhook(ledger, index) }
            ledger.close()
        }()
        let data = directory.file("data")
        let log = data + "/log"
        func sealed() throws -> Bool {
            let current = try String(contentsOfFile: data + "/projections/CURRENT", encoding: .utf8).filter { !$0.isWhitespace }
            return FileManager.default.fileExists(atPath: data + "/projections/" + current + "/CHECKSUM")
        }
        #expect(try sealed())
        // A record past the database's checkpoint, so that the next read folds (writes) it.
        var last: [UInt8] = []
        try LogReader(directory: log).scan { entry in
            if entry.kind == EventRecord.kind { last = Array(entry.payload) }
            return true
        }
        func appendAgain() throws {
            let writer = try LogWriter(directory: log)
            defer { writer.close() }
            _ = try writer.append([LogRecord(kind: EventRecord.kind, payload: last)])
        }
        try appendAgain()
        do {
            let server = try LogWriter(directory: log)
            defer { server.close() }
            _ = try LedgerReader.open(directory: data)
            #expect(try !sealed(), "sealed while another writer held the log")
        }
        try appendAgain()
        _ = try LedgerReader.open(directory: data)
        #expect(try sealed())
    }

    static let binary = Conformance.subledgerBinary

    /// What `subledger ARGS` prints and how it exits: another process on the same data directory.
    static func subledger(_ arguments: [String]) throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, data)
    }

    @Test("a reader taken before another process folds into the same database names every string that process added: reports keep their rows, filters find its events, look-ups answer",
          .enabled(if: FileManager.default.isExecutableFile(atPath: binary.path), "needs the debug build of subledger (swift build)"))
    func readerNamesAnotherProcessesStrings() throws {
        let data = directory.file("data")
        try {
            let ledger = try ledger()
            defer { ledger.close() }
            _ = try webhook(ledger, 0)
        }()
        // The reader a command beside the server holds while the server folds the rest (here the
        // other process is `ingest`, which folds into the same database as it closes).
        let reader = try LedgerReader.open(directory: data)
        let rest = directory.file("rest.jsonl")
        try Data(lines.dropFirst().flatMap { $0 + [UInt8(ascii: "\n")] }).write(to: URL(fileURLWithPath: rest))
        #expect(try Self.subledger(["--data", data, "ingest", rest]).status == 0)

        let (from, to) = ("2026-01-01", "2026-12-31")
        let report = try Self.subledger(["--data", data, "report", "revenue", "--from", from, "--to", to, "--by", "day", "--by-product", "--json"])
        let theirs = try #require(try JSONSerialization.jsonObject(with: report.output) as? [String: Any])["rows"] as? [NSDictionary]
        let query = RevenueQuery(from: UTCDay(from)!, to: UTCDay(to)!, by: .day, byProduct: true)
        let ours = try #require(try JSONSerialization.jsonObject(with: Data(reader.revenue(query).json.bytes)) as? [String: Any])["rows"] as? [NSDictionary]
        let products = Set((theirs ?? []).compactMap { $0["productId"] as? String })
        try #require(products.count > 1, "the workload should have several products")
        try #require(ours == theirs, "rows this reader could not name were left out")
        for product in products {
            var filter = EventQuery()
            filter.products = [product]
            let candidates = try reader.projections.eventCandidates(filter, after: nil, limit: 1)
            #expect(!candidates.positions.isEmpty, "no event of \(product)")
        }
        // Each customer's state names its product and storefront from the strings the other
        // process added (ids this reader's table did not have would trap).
        let expected = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: directory.file("sim/expected.json")))) as! [String: Any]
        for id in (expected["customers"] as! [String: Any]).keys.sorted().prefix(5) {
            let state = try reader.customer(CustomerQuery(id: id, asOf: UTCDay("2027-01-01")!.start))
            let theirs = try Self.subledger(["--data", data, "customer", id, "--as-of", "2027-01-01", "--json"])
            #expect(try JSONSerialization.jsonObject(with: Data(state.json.bytes)) as? NSDictionary
                    == JSONSerialization.jsonObject(with: theirs.output) as? NSDictionary, "\(id)")
        }
    }

    @Test("the background fold commits every batch to the projection database, so a restart without a close folds nothing again")
    func backgroundCommits() throws {
        try {
            let ledger = try ledger(snapshotEveryEvents: 50)
            for index in 0..<lines.count { _ = try webhook(ledger, index) }
            ledger.projections.folding.sync {}  // the fold scheduled by the last batch
            #expect(ledger.foldedEvents == lines.count)
        }()
        // Without a close (as after a crash), the database already holds every event. The
        // ingestion threads, never stopped, may hold the ledger's last acknowledgement (and so the
        // database, open) a moment longer on a loaded machine: this process cannot open it twice.
        var checkpoint = ProjectionStore.snapshotCheckpoint(directory: directory.file("data/projections"))
        let deadline = ContinuousClock.now + .seconds(30)
        while checkpoint == nil && ContinuousClock.now < deadline {
            usleep(10_000)
            checkpoint = ProjectionStore.snapshotCheckpoint(directory: directory.file("data/projections"))
        }
        let stored = try #require(checkpoint)
        #expect(stored.events == lines.count)
        #expect(try LedgerReader.open(directory: directory.file("data")).projections.summary().notifications == lines.count)
    }

    @Test("a read that finds the database needing a rebuild (settings changed) beside a process writing to the ledger names it and leaves the database it has open; alone, it rebuilds")
    func noRebuildUnderAWriter() throws {
        let data = directory.file("data")
        try {
            let ledger = try ledger()
            defer { ledger.close() }
            _ = try ledger.ingest(batch, recordedAt: 0)
        }()
        _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                  rootFiles: [], smallBusiness: true, catalogFile: nil)
        let current = { try String(contentsOfFile: data + "/projections/CURRENT", encoding: .utf8) }
        let before = try current()
        do {
            let server = try LogWriter(directory: data + "/log")
            defer { server.close() }
            #expect {
                _ = try LedgerReader.open(directory: data)
            } throws: { error in
                "\(error)".contains("so the projection database must be rebuilt, and process \(getpid()) has this ledger open for writing")
            }
            #expect(try current() == before)
        }
        let reader = try LedgerReader.open(directory: data)
        #expect(try current() != before)
        #expect(try reader.projections.summary().notifications == lines.count)
    }

    @Test("a writer opening while a command rebuilds the database on open waits for it, rather than failing on the log's lock")
    func writerWaitsForARebuildOnOpen() throws {
        let data = directory.file("data")
        try ledger().close()
        let rebuilding = try FileLock(DataDirectoryLayout(data).rebuildLock)
        let holder = try LogWriter(directory: data + "/log")
        let opened = DispatchSemaphore(value: 0)
        let outcome = Mutex<String?>(nil)
        let thread = Thread {
            do {
                try Ledger(directory: data).close()
                outcome.withLock { $0 = "opened" }
            } catch {
                outcome.withLock { $0 = "\(error)" }
            }
            opened.signal()
        }
        thread.start()
        #expect(opened.wait(timeout: .now() + 0.3) == .timedOut, "\(outcome.withLock { $0 } ?? "")")
        holder.close()
        rebuilding.release()
        #expect(opened.wait(timeout: .now() + 20) == .success)
        #expect(outcome.withLock { $0 } == "opened")
        // Without a rebuild on open, a held log is refused at once, naming its holder.
        let server = try LogWriter(directory: data + "/log")
        defer { server.close() }
        #expect(throws: LogError.self) { try Ledger(directory: data) }
    }
}
