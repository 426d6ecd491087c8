import Foundation
import SubledgerLog
import SubledgerTestSupport
import Testing

@testable import SubledgerProjections

@Suite("Snapshot checksums")
struct SnapshotChecksumTests {
    /// Large enough that its halves are summed on two cores.
    static let largeFile = 160 << 20 + 4096 + 100

    @Test("a data file large enough to be summed in two halves is sealed with the checksum of the whole, and a byte changed in either half is damage")
    func largeFileSealedWithTheChecksumOfTheWhole() throws {
        let directory = TemporaryDirectory()
        var random = SeededGenerator(state: 5)
        let block = random.bytes(1 << 20)
        var bytes = Data(capacity: Self.largeFile)
        while bytes.count < Self.largeFile { bytes.append(contentsOf: block.prefix(Self.largeFile - bytes.count)) }
        // Blocks alike would let a swap of the halves go unseen.
        for offset in stride(from: 0, to: bytes.count, by: 1 << 20) { bytes[offset] = UInt8(truncatingIfNeeded: offset >> 20) }
        let file = URL(fileURLWithPath: directory.path + "/data.mdb")
        try bytes.write(to: file)

        try SnapshotChecksum.seal(directory.path)
        let stored = try String(contentsOfFile: directory.path + "/" + SnapshotChecksum.fileName, encoding: .utf8)
        let whole = bytes.withUnsafeBytes { CRC32C.checksum($0) }
        #expect(UInt32(stored.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) == whole)
        #expect(SnapshotChecksum.isSealed(directory.path))

        for offset in [bytes.count / 4, bytes.count * 3 / 4] {
            var damaged = bytes
            damaged[offset] ^= 0x01
            try damaged.write(to: file)
            #expect(throws: SnapshotDamage.self) { try SnapshotChecksum.check(directory.path) }
            #expect(!SnapshotChecksum.isSealed(directory.path))
        }
    }
}
