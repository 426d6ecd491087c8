#if canImport(Glibc)
import Glibc
#endif
import SubledgerTestSupport
import Testing
@testable import SubledgerCore

@Suite("CRC32C")
struct CRC32CTests {
    @Test("matches the standard check value for \"123456789\" in hardware and software")
    func checkValue() {
        let input = Array("123456789".utf8)
        #expect(CRC32C.checksum(input) == 0xE306_9283)
        #expect(input.withUnsafeBytes { CRC32C.software($0) } == 0xE306_9283)
    }

    @Test("hardware and software agree on random buffers of every length 0…4096, at every alignment")
    func implementationsAgree() {
        var random = SeededGenerator(state: 42)
        let data = random.bytes(4096 + 8)
        data.withUnsafeBytes { raw in
            for length in 0...4096 {
                let offset = length % 8
                let slice = UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)])
                let hardware = CRC32C.checksum(slice)
                let software = CRC32C.software(slice)
                if hardware != software {
                    Issue.record("length \(length) offset \(offset): hardware \(hardware) software \(software)")
                    return
                }
            }
        }
    }

    @Test("hardware and software agree on buffers long enough for three streams, continued and not, whatever their length mod 24")
    func threeStreamsAgree() {
        var random = SeededGenerator(state: 99)
        let data = random.bytes(300_000)
        data.withUnsafeBytes { raw in
            var lengths = Array(3060...3100) + [4095, 4096, 65_537, 299_992]
            lengths += (0..<40).map { _ in Int.random(in: 3072...299_992, using: &random) }
            for length in lengths {
                let offset = length % 8
                let slice = UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + length)])
                let before = UInt32(truncatingIfNeeded: length &* 2_654_435_761)
                #expect(CRC32C.checksum(slice) == CRC32C.software(slice), "length \(length)")
                #expect(CRC32C.checksum(slice, continuing: before) == CRC32C.software(slice, continuing: before), "length \(length), continued")
            }
        }
    }

    @Test("a buffer of over 1.5 GB, whose three streams pass 2^29 bytes each, sums as in software")
    func threeLongStreamsAgree() throws {
        // Zeroed by calloc and mostly never written: untouched pages are the shared zero page.
        let count = 3 << 29 + 4_099
        let memory = try #require(calloc(count, 1))
        defer { free(memory) }
        for offset in [0, 1 << 29, 1 << 29 + 8, 3 << 28, count - 1] { memory.storeBytes(of: UInt8(offset % 251 + 1), toByteOffset: offset, as: UInt8.self) }
        let buffer = UnsafeRawBufferPointer(start: memory, count: count)
        #expect(CRC32C.checksum(buffer) == CRC32C.software(buffer))
    }

    @Test("continuing a checksum over two parts equals the checksum of the whole")
    func continuation() {
        var random = SeededGenerator(state: 7)
        let data = random.bytes(1000)
        let whole = CRC32C.checksum(data)
        for split in [0, 1, 7, 500, 999, 1000] {
            let first = CRC32C.checksum(Array(data[..<split]))
            #expect(CRC32C.checksum(Array(data[split...]), continuing: first) == whole)
            #expect(Array(data[split...]).withUnsafeBytes { CRC32C.software($0, continuing: first) } == whole)
        }
    }

    @Test("two parts summed apart and combined give the checksum of the whole, at every cut")
    func combinedPartsEqualTheWhole() {
        var random = SeededGenerator(state: 7)
        let data = random.bytes(70_000)
        data.withUnsafeBytes { raw in
            let whole = CRC32C.checksum(raw)
            for cut in [0, 1, 7, 8, 3072, 35_000, 65_536, 69_999, 70_000] {
                let first = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[..<cut]))
                let second = CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[cut...]))
                #expect(CRC32C.combine(first, second, lengthOfSecond: raw.count - cut) == whole, "cut at \(cut)")
            }
        }
    }

    @Test("masking is the documented rotation and offset (docs/log-format.md), so an independent reader can undo it")
    func masking() {
        for value: UInt32 in [0, 1, 0xE306_9283, .max] {
            let rotated = CRC32C.mask(value) &- 0xA282_EAD8
            #expect((rotated >> 17) | (rotated << 15) == value)
            #expect(CRC32C.mask(value) != value)
        }
        #expect(CRC32C.mask(0) == 0xA282_EAD8)
    }
}
