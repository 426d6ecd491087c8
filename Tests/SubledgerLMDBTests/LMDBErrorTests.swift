import CLMDB
import Glibc
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

    @Test("system errors keep their errno meaning")
    func systemErrors() {
        #expect(LMDBError(code: ENOSPC, context: "commit").kind == .noSpace)
        #expect(LMDBError(code: EACCES, context: "open").kind == .permissionDenied)
        #expect(LMDBError(code: ENOENT, context: "open").kind == .pathNotFound)
        #expect(LMDBError(code: ENOSPC, context: "commit").description.contains("disk is full"))
    }
}
