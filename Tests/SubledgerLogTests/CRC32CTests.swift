import SubledgerTestSupport
import Testing
@testable import SubledgerLog

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

    @Test("masking is reversible and changes the value")
    func masking() {
        for value: UInt32 in [0, 1, 0xE306_9283, .max] {
            #expect(CRC32C.unmask(CRC32C.mask(value)) == value)
            #expect(CRC32C.mask(value) != value)
        }
    }
}
