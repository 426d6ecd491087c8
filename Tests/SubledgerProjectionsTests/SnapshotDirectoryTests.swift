import Foundation
import SubledgerTestSupport
import SubledgerLMDB
import Testing
@testable import SubledgerProjections

@Suite("Snapshot directory")
struct SnapshotDirectoryTests {
    struct WriteFailed: Error {}

    @Test("a new snapshot is written beside the current one only, and the one it replaces is removed after the switch when no process has it open: a ledger at rest holds one")
    func writeNeedsRoomForTwo() throws {
        let directory = TemporaryDirectory()
        let snapshots = SnapshotDirectory(path: directory.file("projections"))
        func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: directory.file("projections")).sorted() }
        for _ in 0..<2 { _ = try snapshots.replace { path in try Data([1]).write(to: URL(fileURLWithPath: path + "/data.mdb")) } }
        #expect(try names() == ["CURRENT", "snapshot-2"])
        var beside: [String] = []
        _ = try snapshots.replace { path in
            beside = try names()
            try Data([1]).write(to: URL(fileURLWithPath: path + "/data.mdb"))
        }
        #expect(beside == ["CURRENT", "projections.new-3", "snapshot-2"])
        #expect(try names() == ["CURRENT", "snapshot-3"])
    }

    @Test("a snapshot a process has open is kept at the switch, under its name, and removed by the next write once closed, as is one a crash left renamed for removal")
    func openSnapshotIsKept() throws {
        let directory = TemporaryDirectory()
        let snapshots = SnapshotDirectory(path: directory.file("projections"))
        func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: directory.file("projections")).sorted() }
        var environment: LMDBEnvironment?
        let first = try snapshots.replace { path in _ = try LMDBEnvironment(path: path, mapSize: 1 << 20) }
        environment = try LMDBEnvironment(path: first, mapSize: 1 << 20)
        #expect(LMDBEnvironment.isOpen(path: first))
        _ = try snapshots.replace { path in _ = try LMDBEnvironment(path: path, mapSize: 1 << 20) }
        #expect(try names() == ["CURRENT", "snapshot-1", "snapshot-2"], "snapshot-1 is open in this process")
        #expect(try environment?.read { _ in true } == true, "and still reads")
        environment = nil
        #expect(!LMDBEnvironment.isOpen(path: first))
        try FileManager.default.createDirectory(atPath: directory.file("projections/retired-1"), withIntermediateDirectories: false)
        try Data([1]).write(to: URL(fileURLWithPath: directory.file("projections/retired-1/data.mdb")))
        _ = try snapshots.replace { path in _ = try LMDBEnvironment(path: path, mapSize: 1 << 20) }
        #expect(try names() == ["CURRENT", "snapshot-3"])
    }

    @Test("a snapshot a reader opens between the check that it is closed and its rename for removal is put back under its name, and the reader keeps its lock on it, so other processes still see it open")
    func readerOpeningAtTheRetireKeepsIt() throws {
        let directory = TemporaryDirectory()
        let snapshots = SnapshotDirectory(path: directory.file("projections"))
        func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: directory.file("projections")).sorted() }
        let first = try snapshots.replace { path in
            let environment = try LMDBEnvironment(path: path, mapSize: 1 << 20)
            let table = try environment.openDatabase(named: "t", create: true)
            try environment.write { txn in try txn.put(key: Array("k".utf8), value: Array("v".utf8), in: table) }
        }
        var reader: LMDBEnvironment?
        var checked: [String] = []
        snapshots.retire("snapshot-1") { path in
            checked.append(path)
            guard reader == nil else { return LMDBEnvironment.isOpen(path: path) }
            // Closed when checked; a reader opens it at once, before the rename.
            reader = try? LMDBEnvironment(path: path, mapSize: 1 << 20)
            return false
        }
        #expect(checked == [first, directory.file("projections/retired-1")], "checked again after the rename")
        #expect(try names() == ["CURRENT", "snapshot-1"], "put back, not removed")
        let table = try #require(try reader?.openDatabase(named: "t", create: false))
        #expect(try reader?.read { txn in try txn.get(Array("k".utf8), in: table) } == Array("v".utf8))
        // The second check knows the reader by its lock file, under the new name too: opening
        // and closing the file to ask would have dropped the reader's lock, and other processes
        // would then take the database for closed.
        #expect(try Self.holdsPOSIXLock(on: first + "/lock.mdb"), "the reader still holds LMDB's lock")
    }

    /// Whether this process holds the POSIX lock on the first byte of `file` that LMDB holds on
    /// an open environment's lock file, as `/proc/locks` lists it (asking through a descriptor of
    /// the file would drop the lock when it is closed). Its lock on the byte at its PID is
    /// another's: LMDB takes that one again at the next read.
    static func holdsPOSIXLock(on file: String) throws -> Bool {
        var status = stat()
        guard stat(file, &status) == 0 else { return false }
        let process = String(getpid())
        // "3: POSIX  ADVISORY  READ 1234 fe:00:5678 0 0": the holder's PID, device:inode, first byte.
        return try readProcessFile("/proc/locks").split(separator: "\n").contains { line in
            let fields = line.split(separator: " ")
            return fields.count >= 7 && fields[1] == "POSIX" && fields[4] == process && fields[5].hasSuffix(":\(status.st_ino)") && fields[6] == "0"
        }
    }

    @Test("a reader whose snapshot was switched and retired between reading CURRENT and opening it opens the one CURRENT names then; a failure with CURRENT unmoved is the failure")
    func readerFollowsTheSwitch() throws {
        let directory = TemporaryDirectory()
        let snapshots = SnapshotDirectory(path: directory.file("projections"))
        let first = try snapshots.replace { path in try Data([1]).write(to: URL(fileURLWithPath: path + "/data.mdb")) }
        var tried: [String] = []
        let opened = try snapshots.withCurrent { path in
            tried.append(path)
            if tried.count == 1 {
                // Another process's rebuild, in the moment after this one read CURRENT.
                _ = try snapshots.replace { path in try Data([2]).write(to: URL(fileURLWithPath: path + "/data.mdb")) }
            }
            return try Data(contentsOf: URL(fileURLWithPath: path + "/data.mdb"))
        }
        #expect(tried == [first, directory.file("projections") + "/snapshot-2"])
        #expect(opened == Data([2]))
        var calls = 0
        #expect(throws: WriteFailed.self) {
            _ = try snapshots.withCurrent { _ in
                calls += 1
                throw WriteFailed()
            }
        }
        #expect(calls == 1)
    }

    @Test("a snapshot whose write fails (a full disk) is removed at once, giving its space back, and CURRENT still names the one before")
    func failedWriteLeavesNothing() throws {
        let directory = TemporaryDirectory()
        let snapshots = SnapshotDirectory(path: directory.file("projections"))
        let first = try snapshots.replace { path in try Data([1]).write(to: URL(fileURLWithPath: path + "/data.mdb")) }
        #expect(throws: WriteFailed.self) {
            try snapshots.replace { path in
                try Data(repeating: 0, count: 1 << 16).write(to: URL(fileURLWithPath: path + "/data.mdb"))
                throw WriteFailed()
            }
        }
        #expect(try snapshots.current() == first)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("projections")).sorted() == ["CURRENT", "snapshot-1"])
    }
}
