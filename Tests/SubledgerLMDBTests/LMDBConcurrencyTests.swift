import Foundation
import Synchronization
import Testing
import SubledgerLMDB
import SubledgerTestSupport

@Suite("Concurrency")
struct LMDBConcurrencyTests {
    @Test("a read transaction keeps its snapshot while a writer commits; a new read sees the change")
    func snapshotIsolation() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path)
            let db = try env.openDatabase(named: "db", create: true)
            try env.write { try $0.put(key: bytes("status"), value: bytes("active"), in: db) }
            try env.read { snapshot in
                try env.write { txn in
                    try txn.put(key: bytes("status"), value: bytes("expired"), in: db)
                    try txn.put(key: bytes("added"), value: bytes("x"), in: db)
                }
                let status = try snapshot.get(bytes("status"), in: db)
                let added = try snapshot.get(bytes("added"), in: db)
                #expect(status == bytes("active"))
                #expect(added == nil)
            }
            try env.read { txn throws in
                #expect(try txn.get(bytes("status"), in: db) == bytes("expired"))
                #expect(try txn.get(bytes("added"), in: db) == bytes("x"))
            }
        }
    }

    @Test("pages flushed from another thread while write transactions commit leave every record readable")
    func flushingBesideTheWriter() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path, mapSize: 1 << 26, options: .noSync)
            let db = try env.openDatabase(named: "db", create: true)
            let writing = Atomic<Bool>(true)
            let flushes = Atomic<Int>(0)
            let failures = Mutex<[String]>([])
            let flusher = Thread {
                while writing.load(ordering: .relaxed) {
                    do {
                        try env.flushWrittenPages()
                        flushes.add(1, ordering: .relaxed)
                    } catch {
                        failures.withLock { $0.append(String(describing: error)) }
                        return
                    }
                }
            }
            flusher.start()
            let value = [UInt8](repeating: 0x5A, count: 512)
            for chunk in 0..<64 {
                // Halfway, the flusher has had its turn at least once, however slowly it started
                // (under `strace`, fd-check's, the writer can finish first).
                if chunk == 32 {
                    for _ in 0..<10_000 where flushes.load(ordering: .relaxed) == 0 { usleep(1_000) }
                }
                try env.write { txn in
                    for number in chunk * 256..<(chunk + 1) * 256 {
                        try txn.put(key: key(number), value: value, in: db, options: .append)
                    }
                }
            }
            writing.store(false, ordering: .relaxed)
            while !flusher.isFinished { usleep(1_000) }
            try env.sync(force: true)
            #expect(failures.withLock { $0 } == [])
            #expect(flushes.load(ordering: .relaxed) > 0)
            let entries = try env.read { txn in try dump(txn, db) }
            #expect(entries.map(\.0) == (0..<64 * 256).map(key) && entries.allSatisfy { $0.1 == value })
        }
    }

    /// The writer moves every account to the same version and appends that version's records to
    /// a journal, growing the map from 64 KiB several times while readers run.
    @Test("readers in several tasks each see one consistent commit while a writer commits and grows the map")
    func concurrentReaders() async throws {
        let directory = TemporaryDirectory()
        let env = try LMDBEnvironment(path: directory.path, mapSize: 64 * 1024)
        let accounts = try env.openDatabase(named: "accounts", create: true)
        let journal = try env.openDatabase(named: "journal", create: true)
        let accountCount = 50
        let versions = 150
        let recordsPerVersion = 20
        try env.write { txn in
            for account in 0..<accountCount { try txn.put(key: key(account), value: key(0), in: accounts) }
        }
        let writerDone = Flag()
        let reads = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                for version in 1...versions {
                    try env.write { txn in
                        for account in 0..<accountCount {
                            try txn.put(key: key(account), value: key(version), in: accounts)
                        }
                        for record in 0..<recordsPerVersion {
                            try txn.put(key: key(version * 1000 + record), value: [UInt8](repeating: UInt8(version % 256), count: 200),
                                        in: journal, options: .append)
                        }
                    }
                    await Task.yield()
                }
                writerDone.value.store(true, ordering: .releasing)
                return 0
            }
            for _ in 0..<4 {
                group.addTask {
                    var reads = 0
                    repeat {
                        let consistent = try env.read { txn in
                            let version = try txn.get(key(0), in: accounts)
                            var same = true
                            try txn.forEach(in: accounts) { _, value in
                                same = same && Array(value) == version
                                return same
                            }
                            let number = version.map { $0.reduce(0) { $0 << 8 | Int($1) } } ?? -1
                            let journalled = try txn.entryCount(in: journal)
                            return same && journalled == number * recordsPerVersion
                        }
                        #expect(consistent)
                        reads += 1
                        await Task.yield()
                    } while !writerDone.value.load(ordering: .acquiring)
                    return reads
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(reads >= 4)
        #expect(try env.info().mapSize > 64 * 1024)
        try env.read { txn throws in
            #expect(try txn.entryCount(in: journal) == versions * recordsPerVersion)
            #expect(try txn.get(key(accountCount - 1), in: accounts) == key(versions))
        }
    }
}

private final class Flag: Sendable {
    let value = Atomic(false)
}
