import Dispatch
import Foundation
import SubledgerLog
import SubledgerSimulator
import SubledgerTestSupport
import Synchronization
import Testing
@testable import SubledgerLedger

/// Webhook messages arriving together are stored together, each with its own outcome, and what
/// they store is known after a restart like what the CLI stores.
@Suite("Ledger: webhook group commit")
struct GroupCommitTests {
    let directory = TemporaryDirectory()
    let lines: [IngestLine]

    init() throws {
        let configuration = Simulator.Configuration(customers: 20, months: 2, seed: 5, start: "2026-01-01", duplicates: 0, reorder: 0)
        _ = try Simulator(configuration: configuration).run(to: directory.file("sim"))
        lines = try String(contentsOfFile: directory.file("sim/notifications.jsonl"), encoding: .utf8)
            .split(separator: "\n").enumerated().map { IngestLine(bytes: Array($1.utf8), line: $0 + 1, source: "http") }
    }

    func open() throws -> Ledger {
        let data = directory.file("data")
        if !FileManager.default.fileExists(atPath: data) {
            _ = try Ledger.initialize(directory: data, bundleId: "com.example.subledger", appAppleId: 1_234_567_890, environments: ["Production"],
                                      rootFiles: [directory.file("sim/root.cer")], smallBusiness: false, catalogFile: nil)
        }
        return try Ledger(directory: data)
    }

    @Test("every message posted at once, each of them twice, is appended exactly once, and stays known after a restart")
    func concurrentPostsOfTheSameMessages() throws {
        let first = try open()
        let outcomes = Mutex([IngestOutcome?](repeating: nil, count: lines.count * 2))
        DispatchQueue.concurrentPerform(iterations: lines.count * 2) { index in
            let outcome = try? first.ingest(lines[index % lines.count], recordedAt: 1)
            outcomes.withLock { $0[index] = outcome }
        }
        let all = outcomes.withLock { $0 }
        #expect(all.allSatisfy { $0 != nil })
        for index in lines.indices {
            let pair = [all[index], all[index + lines.count]]
            #expect(pair.filter { if case .appended = $0 { true } else { false } }.count == 1, "line \(index + 1): \(pair)")
            // Whichever group stored it, the other answer names the same event.
            let appended = pair.compactMap { if case .appended(let position)? = $0 { position } else { nil } }
            let duplicate = pair.compactMap { if case .duplicate(let position)? = $0 { position } else { nil } }
            #expect(duplicate.count == 1 && duplicate == appended, "line \(index + 1): \(pair)")
        }
        let positions = all.compactMap { if case .appended(let position)? = $0 { position } else { nil } }
        #expect(Set(positions).count == lines.count)
        first.close()

        let ledger = try open()
        defer { ledger.close() }
        #expect(ledger.pipeline.index.recovery == DedupIndex.Recovery())
        #expect(try lines.allSatisfy { try ledger.ingest($0, recordedAt: 2).isDuplicate })
        #expect(try LogReader(directory: ledger.layout.log).summary().records == UInt64(lines.count))
    }

    @Test("notifications and bare copies of their signed transactions posted at once: each copy is appended only if it came first, else answered with its notification's event, and all stay known after a restart")
    func concurrentPostsOfNotificationsAndTheirTransactions() throws {
        let pairs = try lines.compactMap { line in try line.nestedTransaction().map { (line, $0) } }
        let posted = pairs.flatMap { [$0.0, $0.1] }
        let first = try open()
        let outcomes = Mutex([IngestOutcome?](repeating: nil, count: posted.count))
        DispatchQueue.concurrentPerform(iterations: posted.count) { index in
            let outcome = try? first.ingest(posted[index], recordedAt: 1)
            outcomes.withLock { $0[index] = outcome }
        }
        let all = outcomes.withLock { $0 }
        var appended = 0
        for pair in stride(from: 0, to: posted.count, by: 2) {
            guard case .appended(let notification)? = all[pair] else {
                Issue.record("notification \(pair / 2): \(String(describing: all[pair]))")
                continue
            }
            switch all[pair + 1] {
            case .appended(let copy)?: #expect(UInt64(copy)! < UInt64(notification)!, "a copy appended after its notification"); appended += 2
            case .duplicate(let of)?: #expect(of == notification); appended += 1
            default: Issue.record("copy \(pair / 2): \(String(describing: all[pair + 1]))")
            }
        }
        first.close()

        let ledger = try open()
        defer { ledger.close() }
        #expect(try posted.allSatisfy { try ledger.ingest($0, recordedAt: 2).isDuplicate })
        #expect(try LogReader(directory: ledger.layout.log).summary().records == UInt64(appended))
    }

    @Test("closing folds and seals while the log's writer lock is still held, so no command finds it free and seals the database under the last fold")
    func closeSealsBeforeReleasingTheLog() throws {
        let ledger = try open()
        _ = try ledger.ingest(lines, recordedAt: 1)
        let log = ledger.layout.log
        // What a command's `LogWriter.withoutWriter` tries before it seals.
        func lockIsFree() -> Bool {
            guard let writer = try? LogWriter(directory: log) else { return false }
            writer.close()
            return true
        }
        var freeWhileSealing = true
        ledger.pipeline.close(beforeReleasing: {
            freeWhileSealing = lockIsFree()
            ledger.projections.close()
        })
        #expect(!freeWhileSealing)
        #expect(lockIsFree())
    }

    @Test("a message or batch that comes once the ledger is closed is refused as such, not taken for a storage failure (which says on stderr to free disk space)")
    func closedLedgerIsNotAStorageFailure() throws {
        let ledger = try open()
        _ = try ledger.ingest(lines[0], recordedAt: 1)
        ledger.close()
        #expect(throws: LedgerClosed.self) { try ledger.ingest(lines[1], recordedAt: 1) }
        #expect(throws: LedgerClosed.self) { try ledger.ingest(Array(lines[1..<3]), recordedAt: 1) }
        #expect(!ledger.sayingStorageFails)
    }

    @Test("an open ledger's two stage threads carry their names, so top -H and profiles can tell them apart")
    func stageThreadsAreNamed() throws {
        let ledger = try open()
        defer { ledger.close() }
        // A thread names itself once it runs, which a loaded machine may delay.
        func names() throws -> Set<String> {
            let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
            return Set(tasks.compactMap { try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8).trimmingCharacters(in: .newlines) })
        }
        let deadline = ContinuousClock.now + .seconds(30)
        while try !names().isSuperset(of: ["subledger-front", "subledger-back"]) && ContinuousClock.now < deadline { usleep(10_000) }
        #expect(try names().isSuperset(of: ["subledger-front", "subledger-back"]))
    }

    @Test("copies posted by many threads while a batch of the same lines is ingested: each message is appended exactly once, at the position the log holds it")
    func webhookGroupsOverlapWithABatch() throws {
        let ledger = try open()
        let posters = 16
        let outcomes = Mutex([[IngestOutcome?]](repeating: [], count: posters))
        let batch = Mutex<[IngestOutcome]>([])
        let finished = DispatchGroup()
        for poster in 0..<posters {
            finished.enter()
            // Threads of their own: Dispatch's pool would run two at a time on two cores, and
            // groups overlap only when many messages wait at once.
            Thread {
                let order = poster.isMultiple(of: 2) ? Array(lines.indices) : lines.indices.reversed()
                let posted = order.map { try? ledger.ingest(lines[$0], recordedAt: 1) }
                outcomes.withLock { $0[poster] = zip(order, posted).sorted { $0.0 < $1.0 }.map(\.1) }
                finished.leave()
            }.start()
        }
        finished.enter()
        Thread {
            batch.withLock { $0 = (try? ledger.ingest(lines, recordedAt: 1)) ?? [] }
            finished.leave()
        }.start()
        finished.wait()
        defer { ledger.close() }

        let posted = outcomes.withLock { $0 }
        let batched = batch.withLock { $0 }
        #expect(batched.count == lines.count)
        for index in lines.indices {
            let all = posted.map { $0[index] } + [index < batched.count ? batched[index] : nil]
            #expect(all.allSatisfy { $0 != nil }, "line \(index + 1): \(all)")
            #expect(all.filter { if case .appended = $0 { true } else { false } }.count == 1, "line \(index + 1): \(all)")
        }
        let acknowledged = (posted.flatMap { $0 } + batched).compactMap { if case .appended(let position)? = $0 { position } else { nil } }
        var logged: [String] = []
        try LogReader(directory: ledger.layout.log).scan { entry in
            logged.append(entry.position.description)
            return true
        }
        #expect(Set(acknowledged) == Set(logged))
        #expect(logged.count == lines.count)
    }
}
