import Foundation
import SubledgerTestSupport
import Testing
@testable import SubledgerProjections

@Suite("Snapshot directory")
struct SnapshotDirectoryTests {
    struct WriteFailed: Error {}

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
