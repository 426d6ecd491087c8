import Foundation
import SubledgerTestSupport
import Testing
@testable import SubledgerProjections

@Suite("Snapshot directory")
struct SnapshotDirectoryTests {
    struct WriteFailed: Error {}

    @Test("a new snapshot is written beside the current one only: the one kept at the last switch is removed before the write begins, and the current one is kept after the switch")
    func writeNeedsRoomForTwo() throws {
        let directory = TemporaryDirectory()
        let snapshots = SnapshotDirectory(path: directory.file("projections"))
        func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: directory.file("projections")).sorted() }
        for _ in 0..<2 { _ = try snapshots.replace { path in try Data([1]).write(to: URL(fileURLWithPath: path + "/data.mdb")) } }
        #expect(try names() == ["CURRENT", "snapshot-1", "snapshot-2"])
        var beside: [String] = []
        _ = try snapshots.replace { path in
            beside = try names()
            try Data([1]).write(to: URL(fileURLWithPath: path + "/data.mdb"))
        }
        #expect(beside == ["CURRENT", "projections.new-3", "snapshot-2"])
        #expect(try names() == ["CURRENT", "snapshot-2", "snapshot-3"])
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
