import Foundation
import SubledgerLMDB
import SubledgerTestSupport
import SubledgerCore
import Testing

@Suite("LMDB file seals")
struct LMDBFileSealTests {
    /// Large enough that its halves are summed on two cores.
    static let largeFile = 160 << 20 + 4096 + 100

    @Test("a data file large enough to be summed in two halves is sealed with the checksum of the whole, and a byte changed in either half is damage")
    func largeFileSealedWithTheChecksumOfTheWhole() throws {
        let directory = TemporaryDirectory()
        var state: UInt64 = 5
        let block = (0..<(1 << 20)).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        var bytes = Data(capacity: Self.largeFile)
        while bytes.count < Self.largeFile { bytes.append(contentsOf: block.prefix(Self.largeFile - bytes.count)) }
        // Blocks alike would let a swap of the halves go unseen.
        for offset in stride(from: 0, to: bytes.count, by: 1 << 20) { bytes[offset] = UInt8(truncatingIfNeeded: offset >> 20) }
        let file = URL(fileURLWithPath: directory.path + "/data.mdb")
        try bytes.write(to: file)

        try LMDBFileSeal.seal(directory.path)
        let stored = try String(contentsOfFile: directory.path + "/" + LMDBFileSeal.fileName, encoding: .utf8)
        let whole = bytes.withUnsafeBytes { CRC32C.checksum($0) }
        #expect(UInt32(stored.trimmingCharacters(in: .whitespacesAndNewlines), radix: 16) == whole)
        #expect(LMDBFileSeal.isSealed(directory.path))

        for offset in [bytes.count / 4, bytes.count * 3 / 4] {
            var damaged = bytes
            damaged[offset] ^= 0x01
            try damaged.write(to: file)
            #expect { try LMDBFileSeal.check(directory.path) } throws: { ($0 as? LMDBFileSealError)?.kind == .damaged }
            #expect(!LMDBFileSeal.isSealed(directory.path))
        }
    }
}
