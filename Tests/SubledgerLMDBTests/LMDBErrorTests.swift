import CLMDB
import Glibc
import SubledgerTestSupport
import Testing
@testable import SubledgerLMDB

@Suite("Errors")
struct LMDBErrorTests {
    @Test("every LMDB error code maps to a kind of its own, never the catch-all")
    func everyCodeHasAKind() {
        let codes = Array(MDB_KEYEXIST...MDB_LAST_ERRCODE).filter { $0 != MDB_TLS_FULL }
        let kinds = codes.map { LMDBError(code: $0, context: "test").kind }
        #expect(!kinds.contains(.system))
        #expect(Set(kinds).count == codes.count)
    }

    @Test("damage to the snapshot is flagged and tells the operator to rebuild")
    func damageAdvice() {
        for code in [MDB_CORRUPTED, MDB_PAGE_NOTFOUND, MDB_INVALID, MDB_VERSION_MISMATCH] {
            let error = LMDBError(code: code, context: "read customers")
            #expect(error.isSnapshotDamaged)
            #expect(error.description.hasPrefix("read customers: "))
            #expect(error.description.contains("subledger rebuild"))
        }
        #expect(!LMDBError(code: MDB_MAP_FULL, context: "put").isSnapshotDamaged)
    }

    @Test("a commit that a full disk cuts short is noSpace, saying to free space, though liblmdb reports the short write as EIO",
          .enabled(if: SmallFilesystem.isAvailable, "\(SmallFilesystem.missing)"))
    func fullDiskIsNoSpace() throws {
        let filesystem = try #require(SmallFilesystem(size: "1m"), "mounting a tmpfs failed")
        let environment = try LMDBEnvironment(path: filesystem.path, mapSize: 64 << 20)
        let database = try environment.openDatabase(named: "d", create: true)
        let value = [UInt8](repeating: 7, count: 64 << 10)
        do {
            for index in 0..<64 {
                try environment.write { txn in try txn.put(key: Array("k\(index)".utf8), value: value, in: database) }
            }
            Issue.record("4 MiB went into a 1 MiB file system")
        } catch let error as LMDBError {
            #expect(error.kind == .noSpace, "\(error)")
            #expect(error.description.contains("the disk is full"))
        }
    }

    @Test("a new environment on a full disk is noSpace, not a SIGBUS when LMDB first writes its lock file through the map; a seal the disk refuses leaves no empty CHECKSUM",
          .enabled(if: SmallFilesystem.isAvailable, "\(SmallFilesystem.missing)"))
    func fullDiskNewEnvironmentAndSeal() throws {
        let filesystem = try #require(SmallFilesystem(size: "256k"), "mounting a tmpfs failed")
        let sealed = filesystem.path + "/sealed"
        do {
            let environment = try LMDBEnvironment(path: sealed, mapSize: 1 << 20)
            let database = try environment.openDatabase(named: "d", create: true)
            try environment.write { txn in try txn.put(key: Array("k".utf8), value: [1, 2, 3], in: database) }
            var lock = stat()
            #expect(stat(sealed + "/lock.mdb", &lock) == 0 && lock.st_size >= 125 * 64 + 192 && lock.st_blocks * 512 >= lock.st_size, "at least LMDB's size for 126 readers, allocated")
        }
        // Fill the disk to its last byte.
        let filler = open(filesystem.path + "/filler", O_WRONLY | O_CREAT, 0o600)
        let block = [UInt8](repeating: 0, count: 4096)
        while write(filler, block, 4096) > 0 {}
        while write(filler, block, 1) > 0 {}
        close(filler)

        #expect(throws: LMDBFileSealError.self) { try LMDBFileSeal.seal(sealed) }
        #expect(access(sealed + "/" + LMDBFileSeal.fileName, F_OK) != 0, "no seal, not an empty one")
        #expect(throws: Never.self) { try LMDBFileSeal.check(sealed) }
        #expect {
            _ = try LMDBEnvironment(path: filesystem.path + "/new", mapSize: 1 << 20)
        } throws: { error in
            (error as? LMDBError)?.kind == .noSpace
        }
    }

    @Test("system errors keep their errno meaning")
    func systemErrors() {
        #expect(LMDBError(code: ENOSPC, context: "commit").kind == .noSpace)
        #expect(LMDBError(code: EACCES, context: "open").kind == .permissionDenied)
        #expect(LMDBError(code: ENOENT, context: "open").kind == .pathNotFound)
        #expect(LMDBError(code: ENOSPC, context: "commit").description.contains("disk is full"))
    }
}
