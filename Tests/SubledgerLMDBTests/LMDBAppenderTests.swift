import Foundation
import SubledgerLMDB
import Testing

@Suite("Appender")
struct LMDBAppenderTests {
    @Test("an appender larger than the map grows it through the write helper and keeps every record in order")
    func appendGrowsTheMap() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path, mapSize: 64 * 1024)
            let db = try env.openDatabase(named: "big", create: true)
            let value = [UInt8](repeating: 0xCD, count: 1000)
            var runs = 0
            try env.write { txn in
                runs += 1
                try txn.withAppender(to: db) { appender in
                    for number in 0..<4096 { try appender.append(key: key(number), value: value) }
                }
            }
            #expect(runs > 1)
            let entries = try env.read { txn in try dump(txn, db) }
            #expect(entries.map(\.0) == (0..<4096).map(key) && entries.allSatisfy { $0.1 == value })
        }
    }

    @Test("a key not above the last one is refused as out of order, after appends in earlier transactions too")
    func outOfOrderIsRefused() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path, mapSize: 1 << 20)
            let db = try env.openDatabase(named: "ordered", create: true)
            try env.write { txn in try txn.withAppender(to: db) { try $0.append(key: key(5), value: [1]) } }
            for earlier in [5, 4] {
                #expect {
                    try env.write { txn in try txn.withAppender(to: db) { try $0.append(key: key(earlier), value: [2]) } }
                } throws: { ($0 as? LMDBError)?.kind == .keysOutOfOrder }
            }
            try env.read { txn throws in #expect(try txn.entryCount(in: db) == 1) }
        }
    }
}
