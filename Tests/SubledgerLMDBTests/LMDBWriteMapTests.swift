import Foundation
import Testing
import SubledgerLMDB
import SubledgerTestSupport

@Suite("Writing through the map")
struct LMDBWriteMapTests {
    /// Size and allocated bytes of the data file in `directory`.
    private func dataFile(_ directory: TemporaryDirectory) throws -> (size: Int, allocated: Int) {
        var file = stat()
        try #require(stat(directory.file("data.mdb"), &file) == 0)
        return (Int(file.st_size), Int(file.st_blocks) * 512)
    }

    @Test("the data file is the map with every block allocated, when it opens and after each growth, so a full disk is an error and never a SIGBUS")
    func blocksAllocatedThroughTheMap() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path, mapSize: 64 * 1024, options: [.noSync, .writeMap])
            let db = try env.openDatabase(named: "db", create: true)
            let opened = try dataFile(directory)
            #expect(opened.size == (try env.info()).mapSize)
            #expect(opened.allocated >= opened.size)
            var sizes: Set<Int> = [opened.size]
            for batch in 0..<20 {
                try env.write { txn in
                    for number in batch * 100..<(batch + 1) * 100 {
                        try txn.put(key: key(number), value: [UInt8](repeating: UInt8(batch), count: 1500), in: db)
                    }
                }
                let file = try dataFile(directory)
                #expect(file.size == (try env.info()).mapSize)
                #expect(file.allocated >= file.size)
                sizes.insert(file.size)
            }
            #expect(sizes.count > 1, "the map grew: \(sizes.sorted())")
            let entries = try env.read { try dump($0, db) }
            #expect(entries.map(\.0) == (0..<2000).map(key))
            #expect(entries.enumerated().allSatisfy { number, entry in entry.1 == [UInt8](repeating: UInt8(number / 100), count: 1500) })
        }
    }

    @Test("opening a file written without the option changes none of its bytes; writes then go on in place and a reader sees them")
    func openingLeavesTheFileAsItIs() throws {
        try withTemporaryDirectory { directory in
            do {
                let env = try LMDBEnvironment(path: directory.path, mapSize: 1 << 24, options: [.noSync])
                let db = try env.openDatabase(named: "db", create: true)
                try env.write { txn in
                    for number in 0..<300 { try txn.put(key: key(number), value: bytes("before \(number)"), in: db) }
                }
                try env.sync()
            }
            let written = try Data(contentsOf: URL(fileURLWithPath: directory.file("data.mdb")))
            do {
                let env = try LMDBEnvironment(path: directory.path, mapSize: 1 << 20, options: [.noSync, .writeMap])
                _ = try env.openDatabase(named: "db", create: false)
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: directory.file("data.mdb"))) == written)
            do {
                let env = try LMDBEnvironment(path: directory.path, mapSize: 1 << 20, options: [.noSync, .writeMap])
                let db = try env.openDatabase(named: "db", create: false)
                try env.write { txn in
                    for number in 300..<3000 { try txn.put(key: key(number), value: bytes("after \(number)"), in: db) }
                }
                #expect(try dataFile(directory).size > written.count)
            }
            let reader = try LMDBEnvironment(path: directory.path, options: [.readOnly])
            let db = try reader.openDatabase(named: "db", create: false)
            let entries = try reader.read { try dump($0, db) }
            #expect(entries.count == 3000)
            #expect(entries[299].1 == bytes("before 299") && entries[2999].1 == bytes("after 2999"))
        }
    }
}
