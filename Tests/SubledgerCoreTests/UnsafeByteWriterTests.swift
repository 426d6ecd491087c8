import SubledgerCore
import Testing

@Suite struct UnsafeByteWriterTests {
    @Test func writesTheBytesArrayAppendsWouldAfterWhatWasThereAndKeepsOnlyThose() throws {
        let values: [UInt64] = [0, 1, 0x7F, 0x80, 300, 1 << 21, 1 << 35, 1 << 56, .max]
        let signed: [Int64] = [0, -1, 1, -64, 64, .min, .max]
        var expected: [UInt8] = [0xEE]
        for value in values { expected.appendVarint(value) }
        for value in signed { expected.appendZigzag(value) }
        expected.appendBigEndian(UInt128(0x0102_0304_0506_0708_090A_0B0C_0D0E_0F10))
        expected.append(7)

        var written: [UInt8] = [0xEE]
        let room = (values.count + signed.count) * Varint.maxBytes + 16 + 1 + 40
        written.append(atMost: room) { writer in
            for value in values { writer.appendVarint(value) }
            for value in signed { writer.appendZigzag(value) }
            writer.appendBigEndian(UInt128(0x0102_0304_0506_0708_090A_0B0C_0D0E_0F10))
            writer.append(7)
        }
        #expect(written == expected)
    }

    @Test func roomExactlyAsLargeAsTheLongestVarintIsEnough() {
        var written: [UInt8] = []
        written.append(atMost: Varint.maxBytes) { $0.appendVarint(UInt64.max) }
        #expect(written.count == Varint.maxBytes)
        #expect(written.last == 0x01)
    }
}
