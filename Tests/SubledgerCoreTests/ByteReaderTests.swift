import SubledgerCore
import Testing

/// Where a read failed, so tests can tell truncation from a malformed varint.
enum ReadFailure: ByteReaderError, Equatable {
    case truncated(Int)
    case malformed(Int)

    static func truncated(at offset: Int) -> ReadFailure { .truncated(offset) }
    static func malformedVarint(at offset: Int) -> ReadFailure { .malformed(offset) }
}

private func read<T>(_ bytes: [UInt8], _ body: (inout ByteReader<ReadFailure>) throws -> T) throws -> T {
    var copy = bytes
    // A spare tail past `count` must never be read: it would hide a missing bounds check.
    copy += [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    return try copy.withUnsafeBytes { buffer in
        var reader = ByteReader<ReadFailure>(base: buffer.baseAddress!, count: bytes.count)
        return try body(&reader)
    }
}

@Suite struct ByteReaderTests {
    static let samples: [UInt64] = [0, 1, 0x7F, 0x80, 300, 1 << 21, 1 << 35, 1 << 49, 1 << 56, 1 << 63, .max]

    @Test(arguments: samples)
    func varintsReadBackWhatWasAppendedWithOrWithoutBytesAfterThem(_ value: UInt64) throws {
        var bytes: [UInt8] = []
        bytes.appendVarint(value)
        #expect(try read(bytes) { reader in try reader.varint() } == value)
        #expect(try read(bytes + Array(repeating: 0, count: 9)) { reader in try reader.varint() } == value)
    }

    @Test func eachVarintTakesSevenBitsABytePlacedAfterWhatWasThere() throws {
        for bits in 1...64 {
            for value in [UInt64.max >> (64 - bits), UInt64(1) << (bits - 1)] {
                var bytes: [UInt8] = [0xEE]
                bytes.appendVarint(value)
                #expect(bytes.count == 1 + (bits + 6) / 7, "\(value) takes \((bits + 6) / 7) bytes")
                #expect(bytes.first == 0xEE)
                #expect(try read(Array(bytes.dropFirst())) { reader in try reader.varint() } == value)
            }
        }
    }

    @Test(arguments: [Int64.min, -65, -1, 0, 1, 64, .max])
    func zigzagIntegersRoundTrip(_ value: Int64) throws {
        var bytes: [UInt8] = []
        bytes.appendZigzag(value)
        #expect(try read(bytes) { reader in try reader.zigzag() } == value)
    }

    @Test func smallMagnitudesOfEitherSignTakeOneByte() {
        #expect([Int64(0), -1, 1, -2, 63, -64].map(Varint.zigzag) == [0, 1, 2, 3, 126, 127])
    }

    @Test func aVarintCutShortIsTruncatedWhereItStarts() {
        #expect(throws: ReadFailure.truncated(1)) {
            try read([0x05, 0x80, 0x80]) { reader in
                _ = try reader.byte()
                return try reader.varint()
            }
        }
    }

    @Test(arguments: [[0x80, 0x00], [0x80, 0x00, 0, 0, 0, 0, 0, 0], [0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00, 0x00, 0x00], [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x02]] as [[UInt8]])
    func overlongOrOverflowingVarintsAreMalformed(_ bytes: [UInt8]) {
        #expect(throws: ReadFailure.malformed(0)) {
            try read(bytes) { reader in try reader.varint() }
        }
    }

    @Test func fixedWidthIntegersAndRunsStopAtTheEnd() throws {
        var bytes: [UInt8] = []
        bytes.appendBigEndian(UInt32(0x0102_0304))
        bytes += [9, 8, 7]
        try read(bytes) { reader throws in
            #expect(try reader.bigEndian(UInt32.self) == 0x0102_0304)
            #expect(throws: ReadFailure.truncated(4)) { _ = try reader.bytes(4) }
            #expect(Array(try reader.bytes(2)) == [9, 8])
            #expect(reader.peek() == 7)
            #expect(Array(reader.rest()) == [7])
            #expect(reader.isAtEnd)
            #expect(throws: ReadFailure.truncated(7)) { _ = try reader.byte() }
        }
    }

    @Test func anEmptyBufferReadsAsTheEnd() {
        var reader = ByteReader<ReadFailure>(UnsafeRawBufferPointer(start: nil, count: 0))
        #expect(reader.isAtEnd)
        #expect(throws: ReadFailure.truncated(0)) { _ = try reader.varint() }
    }
}
