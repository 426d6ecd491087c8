import Testing
import SubledgerLMDB
import SubledgerTestSupport

@Suite("Readahead")
struct LMDBReadaheadTests {
    @Test("without readahead the data file's map is advised random access, and still is after the map grows; with readahead it is not")
    func mapAdvisedRandom() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path, mapSize: 64 * 1024, options: [.noSync, .writeMap, .noReadahead])
            let db = try env.openDatabase(named: "db", create: true)
            #expect(try MappedFileAdvice.randomAccess(of: directory.file("data.mdb")) == [true])
            let opened = try env.info().mapSize
            try env.write { txn in
                for number in 0..<2000 { try txn.put(key: key(number), value: [UInt8](repeating: 7, count: 1500), in: db) }
            }
            #expect(try env.info().mapSize > opened, "the map grew")
            #expect(try MappedFileAdvice.randomAccess(of: directory.file("data.mdb")) == [true])
        }
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path, mapSize: 64 * 1024, options: [.noSync, .writeMap])
            _ = try env.openDatabase(named: "db", create: true)
            #expect(try MappedFileAdvice.randomAccess(of: directory.file("data.mdb")) == [false])
        }
    }
}
