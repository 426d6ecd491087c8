import Testing
import SubledgerLMDB

@Suite("Transactions")
struct LMDBTransactionTests {
    @Test("values put in named databases come back from the database they were put in")
    func roundTripAcrossDatabases() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path)
            let customers = try env.openDatabase(named: "customers", create: true)
            let reports = try env.openDatabase(named: "reports", create: true)
            try env.write { txn throws in
                try txn.put(key: bytes("c1"), value: bytes("active"), in: customers)
                try txn.put(key: bytes("c1"), value: bytes("42"), in: reports)
                try txn.put(key: bytes("c2"), value: [UInt8](), in: customers)
            }
            try env.read { txn throws in
                #expect(try txn.get(bytes("c1"), in: customers) == bytes("active"))
                #expect(try txn.get(bytes("c1"), in: reports) == bytes("42"))
                #expect(try txn.get(bytes("c2"), in: customers) == [])
                #expect(try txn.get(bytes("c2"), in: reports) == nil)
                let length = try txn.withValue(forKey: bytes("c1"), in: customers) { $0.count }
                #expect(length == 6)
                let missing = try txn.withValue(forKey: bytes("nobody"), in: customers) { $0.count }
                #expect(missing == nil)
                #expect(try txn.entryCount(in: customers) == 2)
            }
        }
    }

    @Test("a put replaces the value")
    func overwrite() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path)
            let db = try env.openDatabase(named: "db", create: true)
            try env.write { txn throws in
                try txn.put(key: bytes("k"), value: bytes("one"), in: db)
                try txn.put(key: bytes("k"), value: bytes("two"), in: db)
            }
            #expect(try env.read { try $0.get(bytes("k"), in: db) } == bytes("two"))
        }
    }

    @Test("append accepts increasing keys and rejects a key not above the last with keysOutOfOrder")
    func appendOrder() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path)
            let db = try env.openDatabase(named: "db", create: true)
            for (earlier, later) in [(key(2), key(1)), (key(2), key(2))] {
                let error = #expect(throws: LMDBError.self) {
                    try env.write { txn throws in
                        try txn.put(key: key(1), value: bytes("a"), in: db, options: .append)
                        try txn.put(key: earlier, value: bytes("b"), in: db, options: .append)
                        try txn.put(key: later, value: bytes("c"), in: db, options: .append)
                    }
                }
                #expect(error?.kind == .keysOutOfOrder)
                #expect(error?.description.contains("increasing") == true)
            }
            try env.write { txn throws in
                for number in 0..<100 { try txn.put(key: key(number), value: key(number), in: db, options: .append) }
            }
            #expect(try env.read { try $0.entryCount(in: db) } == 100)
        }
    }

    @Test("a reserved value is the bytes the fill closure wrote in place")
    func reservePut() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path)
            let db = try env.openDatabase(named: "db", create: true)
            try env.write { txn throws in
                try txn.put(key: bytes("r"), reservingCount: 5, in: db) { buffer in
                    buffer.copyBytes(from: bytes("hello"))
                }
                try txn.put(key: bytes("s"), reservingCount: 3, in: db, options: .append) { buffer in
                    for index in buffer.indices { buffer[index] = UInt8(index + 1) }
                }
            }
            try env.read { txn throws in
                #expect(try txn.get(bytes("r"), in: db) == bytes("hello"))
                #expect(try txn.get(bytes("s"), in: db) == [1, 2, 3])
            }
        }
    }

    @Test("cursor scans visit keys in byte order, from a start key, and stop when told")
    func cursorScans() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path)
            let db = try env.openDatabase(named: "index", create: true)
            let keys = ["b/2", "a/1", "b/10", "c", "b/1", "a", "b", "ba"]
            try env.write { txn throws in
                for k in keys { try txn.put(key: bytes(k), value: bytes(k.uppercased()), in: db) }
            }
            let sorted = keys.map(bytes).sorted { $0.lexicographicallyPrecedes($1) }
            try env.read { txn throws in
                let all = try dump(txn, db)
                #expect(all.map(\.0) == sorted)
                #expect(all.allSatisfy { String(decoding: $0.1, as: UTF8.self) == String(decoding: $0.0, as: UTF8.self).uppercased() })

                var prefixed: [[UInt8]] = []
                try txn.forEach(in: db, from: bytes("b/")) { key, _ in
                    guard key.starts(with: bytes("b/")) else { return false }
                    prefixed.append(Array(key))
                    return true
                }
                #expect(prefixed == sorted.filter { $0.starts(with: bytes("b/")) })

                var firstTwo: [[UInt8]] = []
                try txn.forEach(in: db) { key, _ in
                    firstTwo.append(Array(key))
                    return firstTwo.count < 2
                }
                #expect(firstTwo == Array(sorted.prefix(2)))

                var none = 0
                try txn.forEach(in: db, from: bytes("d")) { _, _ in none += 1; return true }
                #expect(none == 0)
            }
        }
    }

    @Test("a cursor moves to first, last, next, previous and seeks exact or following keys")
    func cursorMoves() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path)
            let db = try env.openDatabase(named: "db", create: true)
            try env.write { txn throws in
                for number in [10, 20, 30] { try txn.put(key: key(number), value: bytes("\(number)"), in: db) }
            }
            try env.read { txn throws in
                try txn.withCursor(in: db) { cursor throws in
                    #expect(try cursor.first().map { Array($0.key) } == key(10))
                    #expect(try cursor.next().map { Array($0.value) } == bytes("20"))
                    #expect(try cursor.previous().map { Array($0.key) } == key(10))
                    #expect(try cursor.previous() == nil)
                    #expect(try cursor.last().map { Array($0.key) } == key(30))
                    #expect(try cursor.next() == nil)
                    #expect(try cursor.seek(toFirstKeyAtOrAfter: key(11)).map { Array($0.key) } == key(20))
                    #expect(try cursor.seek(toFirstKeyAtOrAfter: key(31)) == nil)
                    #expect(try cursor.seek(toKey: key(30)).map { Array($0.value) } == bytes("30"))
                    #expect(try cursor.seek(toKey: key(25)) == nil)
                }
            }
        }
    }

    @Test("delete reports presence and removes the key from its database only")
    func deleteAndDrop() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path)
            let kept = try env.openDatabase(named: "kept", create: true)
            let doomed = try env.openDatabase(named: "doomed", create: true)
            try env.write { txn throws in
                for number in 0..<10 {
                    try txn.put(key: key(number), value: key(number), in: kept)
                    try txn.put(key: key(number), value: key(number), in: doomed)
                }
            }
            try env.write { txn throws in
                #expect(try txn.delete(key: key(3), in: kept))
                #expect(try !txn.delete(key: key(3), in: kept))
                #expect(try txn.get(key(3), in: kept) == nil)
                #expect(try txn.entryCount(in: kept) == 9)
            }
            #expect(try env.read { try $0.entryCount(in: doomed) } == 10)
        }
    }

    @Test("a write whose body throws leaves nothing behind and rethrows the body's error")
    func abortOnThrow() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path)
            let db = try env.openDatabase(named: "db", create: true)
            #expect(throws: ExpectedFailure.self) {
                try env.write { txn throws in
                    try txn.put(key: bytes("k"), value: bytes("v"), in: db)
                    throw ExpectedFailure()
                }
            }
            try env.read { txn throws in
                #expect(try txn.get(bytes("k"), in: db) == nil)
                #expect(try txn.entryCount(in: db) == 0)
            }
        }
    }

    @Test("an empty or over-long key is rejected with badValueSize")
    func keySizeLimits() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path)
            let db = try env.openDatabase(named: "db", create: true)
            for bad in [[UInt8](), [UInt8](repeating: 7, count: 512)] {
                let error = #expect(throws: LMDBError.self) {
                    try env.write { try $0.put(key: bad, value: bytes("v"), in: db) }
                }
                #expect(error?.kind == .badValueSize)
            }
            try env.write { try $0.put(key: [UInt8](repeating: 7, count: 511), value: bytes("v"), in: db) }
        }
    }

    @Test("transactions of either kind share generic reading code")
    func genericReading() throws {
        func total<A>(_ txn: borrowing LMDBTransaction<A>, _ db: LMDBDatabase) throws -> Int {
            var sum = 0
            try txn.forEach(in: db) { _, value in sum += Int(value[0]); return true }
            return sum
        }
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path)
            let db = try env.openDatabase(named: "db", create: true)
            let inWriter = try env.write { txn throws in
                for number in 1...4 { try txn.put(key: key(number), value: [UInt8(number)], in: db) }
                return try total(txn, db)
            }
            #expect(inWriter == 10)
            #expect(try env.read { try total($0, db) } == 10)
        }
    }
}
