import Testing
import SubledgerLMDB

@Suite("Determinism")
struct LMDBDeterminismTests {
    /// Projections rebuild snapshots from the log and rely on equal input giving equal content,
    /// whatever the snapshot held before.
    @Test("rebuilding the same content in key order gives identical dumps, even over stale content")
    func rebuildsAreIdentical() throws {
        try withTemporaryDirectory { directory in
            let content = (0..<3000).map { number in (key(number * 7), bytes("customer \(number) state \(number % 5)")) }

            let fresh = try LMDBEnvironment(path: directory.appending("fresh"), options: .noSync)
            let freshDB = try fresh.openDatabase(named: "customers", create: true)
            try fresh.write { txn in
                for (k, v) in content { try txn.put(key: k, value: v, in: freshDB, options: .append) }
            }
            try fresh.sync(force: true)

            let reused = try LMDBEnvironment(path: directory.appending("reused"))
            let reusedDB = try reused.openDatabase(named: "customers", create: true)
            try reused.write { txn in
                for number in stride(from: 9000, to: 0, by: -3) {
                    try txn.put(key: key(number), value: bytes("stale \(number)"), in: reusedDB)
                }
            }
            try reused.write { txn in
                try txn.removeAllEntries(in: reusedDB)
                for (k, v) in content.prefix(1000) { try txn.put(key: k, value: v, in: reusedDB, options: .append) }
            }
            try reused.write { txn in
                for (k, v) in content.dropFirst(1000) { try txn.put(key: k, value: v, in: reusedDB, options: .append) }
            }

            let freshDump = try fresh.read { try dump($0, freshDB) }
            let reusedDump = try reused.read { try dump($0, reusedDB) }
            #expect(freshDump.count == content.count)
            #expect(freshDump.elementsEqual(content, by: ==))
            #expect(reusedDump.elementsEqual(freshDump, by: ==))
        }
    }
}
