import Foundation
import Testing
import SubledgerLMDB
import SubledgerTestSupport

@Suite("Environment")
struct LMDBEnvironmentTests {
    @Test("a write larger than the map grows it, reruns the body and keeps every record")
    func mapGrowth() throws {
        try withTemporaryDirectory { directory in
            let initialSize = 64 * 1024
            let env = try LMDBEnvironment(path: directory.path, mapSize: initialSize)
            let db = try env.openDatabase(named: "big", create: true)
            let value = [UInt8](repeating: 0xAB, count: 1000)
            var runs = 0
            try env.write { txn in
                runs += 1
                for number in 0..<4096 {
                    try txn.put(key: key(number), value: value, in: db, options: .append)
                }
            }
            #expect(runs > 1)
            let info = try env.info()
            #expect(info.mapSize >= 4096 * 1000)
            let entries = try env.read { txn in try dump(txn, db) }
            #expect(entries.map(\.0) == (0..<4096).map(key) && entries.allSatisfy { $0.1 == value })
        }
    }

    @Test("the map grows even when the body catches the map-full error")
    func mapGrowthWhenBodySwallowsError() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path, mapSize: 64 * 1024)
            let db = try env.openDatabase(named: "big", create: true)
            var swallowed = 0
            try env.write { txn in
                do {
                    for number in 0..<2000 {
                        try txn.put(key: key(number), value: [UInt8](repeating: 1, count: 500), in: db)
                    }
                } catch let error as LMDBError where error.kind == .mapFull {
                    swallowed += 1
                }
            }
            #expect(swallowed > 0)
            #expect(try env.read { try $0.entryCount(in: db) } == 2000)
        }
    }

    @Test("a write nested in a read cannot grow the map and says so instead of deadlocking")
    func noGrowthUnderOwnReader() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path, mapSize: 64 * 1024)
            let db = try env.openDatabase(named: "db", create: true)
            try env.write { try $0.put(key: key(0), value: bytes("kept"), in: db) }
            try env.read { snapshot in
                let error = #expect(throws: LMDBError.self) {
                    try env.write { txn in
                        for number in 1..<2000 {
                            try txn.put(key: key(number), value: [UInt8](repeating: 1, count: 500), in: db)
                        }
                    }
                }
                #expect(error?.kind == .mapFull)
                let kept = try snapshot.get(key(0), in: db)
                #expect(kept == bytes("kept"))
            }
            #expect(try env.read { try $0.entryCount(in: db) } == 1)
        }
    }

    @Test("a write inside a write on the same thread fails with nestedTransaction instead of deadlocking")
    func nestedWrite() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path)
            let db = try env.openDatabase(named: "db", create: true)
            let error = #expect(throws: LMDBError.self) {
                try env.write { _ in
                    try env.write { try $0.put(key: key(1), value: key(1), in: db) }
                }
            }
            #expect(error?.kind == .nestedTransaction)
            try env.write { try $0.put(key: key(1), value: key(1), in: db) }
        }
    }

    @Test("opening a database inside a transaction closure fails with nestedTransaction")
    func openInsideTransaction() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.path)
            _ = try env.openDatabase(named: "existing", create: true)
            for create in [false, true] {
                let error = #expect(throws: LMDBError.self) {
                    try env.read { _ in _ = try env.openDatabase(named: "existing", create: create) }
                }
                #expect(error?.kind == .nestedTransaction)
            }
            #expect(try env.openDatabase(named: "existing", create: false).name == "existing")
        }
    }

    @Test("data survives closing and reopening the environment")
    func reopen() throws {
        try withTemporaryDirectory { directory in
            do {
                let env = try LMDBEnvironment(path: directory.path)
                let db = try env.openDatabase(named: "customers", create: true)
                try env.write { try $0.put(key: bytes("c1"), value: bytes("active"), in: db) }
            }
            let env = try LMDBEnvironment(path: directory.path)
            #expect(env.staleReadersCleared == 0)
            let db = try env.openDatabase(named: "customers", create: false)
            #expect(try env.read { try $0.get(bytes("c1"), in: db) } == bytes("active"))
        }
    }

    @Test("a path is opened once per process; the second open fails with alreadyOpen")
    func singleOpenPerPath() throws {
        try withTemporaryDirectory { directory in
            do {
                let first = try LMDBEnvironment(path: directory.path)
                let sameDirectoryOtherSpelling = directory.path + "/../" + directory.path.split(separator: "/").last!
                let error = #expect(throws: LMDBError.self) { _ = try LMDBEnvironment(path: sameDirectoryOtherSpelling) }
                #expect(error?.kind == .alreadyOpen)
                withExtendedLifetime(first) {}
            }
            _ = try LMDBEnvironment(path: directory.path)
        }
    }

    @Test("missing directories are created; noSubdirectory puts the data file at the path")
    func directoryLayout() throws {
        try withTemporaryDirectory { directory in
            let nested = directory.file("a/b/env")
            _ = try LMDBEnvironment(path: nested)
            #expect(FileManager.default.fileExists(atPath: nested + "/data.mdb"))

            let file = directory.file("c/snapshot.mdb")
            _ = try LMDBEnvironment(path: file, options: .noSubdirectory)
            #expect(FileManager.default.fileExists(atPath: file))
            #expect(FileManager.default.fileExists(atPath: file + "-lock"))
        }
    }

    @Test("a read-only environment reads and refuses writes with permissionDenied")
    func readOnly() throws {
        try withTemporaryDirectory { directory in
            do {
                let env = try LMDBEnvironment(path: directory.path)
                let db = try env.openDatabase(named: "db", create: true)
                try env.write { try $0.put(key: key(1), value: bytes("one"), in: db) }
            }
            let env = try LMDBEnvironment(path: directory.path, options: .readOnly)
            let db = try env.openDatabase(named: "db", create: false)
            #expect(try env.read { try $0.get(key(1), in: db) } == bytes("one"))
            let error = #expect(throws: LMDBError.self) {
                try env.write { try $0.put(key: key(2), value: bytes("two"), in: db) }
            }
            #expect(error?.kind == .permissionDenied)
        }
    }

    @Test("a compacting copy opens as an environment with the same content")
    func compactCopy() throws {
        try withTemporaryDirectory { directory in
            let env = try LMDBEnvironment(path: directory.file("live"))
            let db = try env.openDatabase(named: "db", create: true)
            try env.write { txn in
                for number in 0..<500 { try txn.put(key: key(number), value: bytes("value \(number)"), in: db) }
            }
            try env.write { txn in
                for number in stride(from: 0, to: 500, by: 2) { try txn.delete(key: key(number), in: db) }
            }
            try env.copy(to: directory.file("copy"), compact: true)
            let original = try env.read { try dump($0, db) }

            let copy = try LMDBEnvironment(path: directory.file("copy"))
            let copied = try copy.openDatabase(named: "db", create: false)
            let content = try copy.read { try dump($0, copied) }
            #expect(content.count == 250)
            #expect(content.elementsEqual(original, by: ==))

            let error = #expect(throws: LMDBError.self) { try env.copy(to: directory.file("copy"), compact: false) }
            #expect(error?.kind == .fileExists)
        }
    }

    @Test("a garbage data file is reported as a damaged snapshot, not a crash")
    func garbageDataFile() throws {
        try withTemporaryDirectory { directory in
            var generator = SystemRandomNumberGenerator()
            let garbage = (0..<65536).map { _ in UInt8.random(in: 0...255, using: &generator) }
            try Data(garbage).write(to: URL(fileURLWithPath: directory.file("data.mdb")))
            let error = #expect(throws: LMDBError.self) { _ = try LMDBEnvironment(path: directory.path) }
            #expect(error?.kind == .invalidFile)
            #expect(error?.isSnapshotDamaged == true)
            #expect(error?.description.contains("subledger rebuild") == true)
        }
    }

    @Test("an unwritable location is reported as permissionDenied")
    func unwritablePath() throws {
        try withTemporaryDirectory { directory in
            // Root ignores file modes, so as root use sysfs, which refuses new entries to everyone.
            let path: String
            if geteuid() == 0 {
                path = "/sys/subledger-lmdb-\(UUID().uuidString)/env"
            } else {
                try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: directory.path)
                path = directory.file("env")
            }
            defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.path) }
            let error = #expect(throws: LMDBError.self) { _ = try LMDBEnvironment(path: path) }
            #expect(error?.kind == .permissionDenied)
            #expect(error?.description.contains(path) == true)
        }
    }

    @Test(
        "a map grown by another process is adopted at the next transaction",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/mdb_load"),
                 "needs mdb_load from the lmdb-utils package"))
    func mapResizedByAnotherProcess() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("env")
            let env = try LMDBEnvironment(path: path, mapSize: 64 * 1024)
            let small = try env.openDatabase(named: "small", create: true)
            try env.write { try $0.put(key: key(1), value: bytes("one"), in: small) }
            let before = try env.info().mapSize

            var dump = "VERSION=3\nformat=bytevalue\ntype=btree\nmapsize=\(16 << 20)\nHEADER=END\n"
            let value = String(repeating: "ab", count: 200)
            for number in 0..<2000 {
                dump += " " + key(number).map { String(format: "%02x", $0) }.joined() + "\n " + value + "\n"
            }
            dump += "DATA=END\n"
            let dumpFile = directory.file("big.dump")
            try dump.write(toFile: dumpFile, atomically: true, encoding: .utf8)
            let load = Process()
            load.executableURL = URL(fileURLWithPath: "/usr/bin/mdb_load")
            load.arguments = ["-f", dumpFile, "-s", "big", path]
            try load.run()
            load.waitUntilExit()
            try #require(load.terminationStatus == 0)

            let big = try env.openDatabase(named: "big", create: false)
            #expect(try env.read { try $0.entryCount(in: big) } == 2000)
            #expect(try env.info().mapSize > before)
            try env.write { try $0.put(key: key(2), value: bytes("two"), in: small) }
            #expect(try env.read { try $0.entryCount(in: small) } == 2)
        }
    }

    @Test("an environment is open while a process has it open, this one or another (LMDB's own mdb_load, waiting for its input), and not once it has closed or exited; one never opened is not")
    func openInAnyProcess() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("env")
            #expect(!LMDBEnvironment.isOpen(path: path))
            try withExtendedLifetime(LMDBEnvironment(path: path, mapSize: 1 << 20)) { _ in
                #expect(LMDBEnvironment.isOpen(path: path))
            }
            #expect(!LMDBEnvironment.isOpen(path: path))

            let load = Process()
            load.executableURL = URL(fileURLWithPath: "/usr/bin/mdb_load")
            load.arguments = ["-s", "probe", path]
            let input = Pipe()
            load.standardInput = input
            try load.run()
            // It opens the environment once it has read the header, then waits for the data.
            input.fileHandleForWriting.write(Data("VERSION=3\nformat=bytevalue\ntype=btree\nHEADER=END\n".utf8))
            let deadline = ContinuousClock.now + .seconds(10)
            while !LMDBEnvironment.isOpen(path: path), ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.01) }
            #expect(LMDBEnvironment.isOpen(path: path), "open in mdb_load")
            input.fileHandleForWriting.write(Data(" 01\n 02\nDATA=END\n".utf8))
            try input.fileHandleForWriting.close()
            load.waitUntilExit()
            #expect(load.terminationStatus == 0)
            #expect(!LMDBEnvironment.isOpen(path: path))
        }
    }

    @Test("an environment that must exist is not made anew: without createDirectory a missing directory fails the open and is not created")
    func existingOnly() throws {
        try withTemporaryDirectory { directory in
            let path = directory.file("gone")
            #expect(throws: LMDBError.self) { try LMDBEnvironment(path: path, mapSize: 1 << 20, createDirectory: false) }
            #expect(!FileManager.default.fileExists(atPath: path))
        }
    }
}
