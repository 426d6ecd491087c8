import Foundation
import Testing
import SubledgerLMDB
import SubledgerTestSupport

@Suite("Mapped pages")
struct LMDBResidencyTests {
    @Test("releasing the mapped pages empties this process's share of the map, and every value still reads back")
    func releaseKeepsData() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path, mapSize: 64 << 20)
            let db = try env.openDatabase(named: "values", create: true)
            let count = 2048
            func value(_ number: Int) -> [UInt8] { [UInt8](repeating: UInt8(truncatingIfNeeded: number), count: 3000) }
            try env.write { txn in
                for number in 0..<count { try txn.put(key: key(number), value: value(number), in: db, options: .append) }
            }
            func readAll() throws -> Int {
                try env.read { txn throws in
                    var matching = 0
                    try txn.forEach(in: db) { k, v in
                        if v.elementsEqual(value(Int(k.last!) | Int(k[k.count - 2]) << 8)) { matching += 1 }
                        return true
                    }
                    return matching
                }
            }
            #expect(try readAll() == count)
            let touched = try residentPages(of: env, file: directory.file("data.mdb"))
            // 2,048 values of 3,000 bytes span at least 1,500 pages, all read above.
            #expect(touched >= 1500)

            try env.releaseMappedPages()
            #expect(try residentPages(of: env, file: directory.file("data.mdb")) < touched / 10)
            #expect(try readAll() == count)
            #expect(try residentPages(of: env, file: directory.file("data.mdb")) >= 1500)
        }
    }

    @Test("a release while another thread reads in a transaction leaves that reader's answers intact")
    func releaseDuringRead() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path, mapSize: 64 << 20)
            let db = try env.openDatabase(named: "values", create: true)
            let payload = [UInt8](repeating: 0x5A, count: 2000)
            try env.write { txn in
                for number in 0..<1024 { try txn.put(key: key(number), value: payload, in: db, options: .append) }
            }
            let releasing = Thread { for _ in 0..<50 { try? env.releaseMappedPages() } }
            releasing.start()
            for _ in 0..<10 {
                let intact = try env.read { txn throws in
                    var intact = 0
                    try txn.forEach(in: db) { _, v in
                        if v.elementsEqual(payload) { intact += 1 }
                        return true
                    }
                    return intact
                }
                #expect(intact == 1024)
            }
        }
    }
}

/// Pages of `env`'s data file present in this process's page tables (bit 63 of
/// `/proc/self/pagemap`), over the regions `/proc/self/maps` gives for the file.
private func residentPages(of env: LMDBEnvironment, file: String) throws -> Int {
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let maps = try readProcessFile("/proc/self/maps")
    let handle = try #require(FileHandle(forReadingAtPath: "/proc/self/pagemap"))
    defer { try? handle.close() }
    var resident = 0
    for line in maps.split(separator: "\n") where line.hasSuffix(file) {
        let bounds = line.prefix { $0 != " " }.split(separator: "-").compactMap { Int($0, radix: 16) }
        try handle.seek(toOffset: UInt64(bounds[0] / page * 8))
        let data = try #require(try handle.read(upToCount: (bounds[1] - bounds[0]) / page * 8))
        resident += data.withUnsafeBytes { raw in raw.bindMemory(to: UInt64.self).reduce(0) { $0 + Int($1 >> 63) } }
    }
    return resident
}
