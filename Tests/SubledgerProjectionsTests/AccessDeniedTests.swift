import CLMDB
import Foundation
import Testing
@testable import SubledgerLMDB
@testable import SubledgerProjections

@Suite("Projection store: permission errors are not damage")
struct AccessDeniedTests {
    @Test("LMDB refusing the open for permission (EACCES, EPERM, EROFS) is access denied, naming the directory")
    func lmdbPermissionErrors() {
        for code in [EACCES, EPERM, EROFS] {
            let error = ProjectionError(accessDenied: LMDBError(code: code, context: "open environment at /d/projections/snapshot-1"),
                                        directory: "/d/projections")
            #expect(error?.kind == .accessDenied(path: "/d/projections",
                                                 detail: "open environment at /d/projections/snapshot-1: \(String(cString: strerror(code)))", errno: code))
            // The owner of a read-only copy is told to copy it, not to become its owner.
            #expect(error.map { "\($0)".contains("read-only") } == (code == EROFS))
            #expect(error.map { "\($0)".contains("the user that owns") } == (code != EROFS))
        }
    }

    @Test("denied in a directory this user owns, the message says to take back the files another user made there, not to run as the owner")
    func ownerDeniedByAnotherUsersFiles() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("subledger-access-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: data + "/projections", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: data) }
        let error = try #require(ProjectionError(accessDenied: LMDBError(code: EACCES, context: "open environment"), directory: data + "/projections"))
        #expect("\(error)".contains("`chown -R \(NSUserName()) "), "named by this user's name: \(error)")
        #expect("\(error)".contains(" \(data)`"), "the data directory, where such files may be anywhere: \(error)")
        #expect(!"\(error)".contains("run subledger as the user that owns"))
    }

    @Test("an unreadable CURRENT or data file is access denied; a missing one is not")
    func snapshotFilePermissionErrors() {
        let unreadable = ProjectionError(.snapshotIO(path: "/d/projections/CURRENT", errno: EACCES, operation: "open"))
        #expect(ProjectionError(accessDenied: unreadable, directory: "/d/projections") != nil)
        let missing = ProjectionError(.snapshotIO(path: "/d/projections/snapshot-1/data.mdb", errno: ENOENT, operation: "open"))
        #expect(ProjectionError(accessDenied: missing, directory: "/d/projections") == nil)
    }

    @Test("damage stays damage: a corrupted or invalid LMDB file is not access denied")
    func damageIsNotAccessDenied() {
        for code in [MDB_CORRUPTED, MDB_INVALID, MDB_PAGE_NOTFOUND, EIO] {
            #expect(ProjectionError(accessDenied: LMDBError(code: code, context: "open"), directory: "/d") == nil)
        }
    }
}
