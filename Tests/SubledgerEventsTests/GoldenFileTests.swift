import Foundation
import SubledgerEvents
import Testing

/// `Golden/events-v1.bin` holds the encoding of `GoldenEvents.all`, each record preceded by its
/// length as a LEB128 varint. It is committed and never regenerated unless the events in
/// `GoldenEvents` change on purpose (then: `SUBLEDGER_WRITE_GOLDEN=1 swift test --filter
/// GoldenFileTests` and commit the new file with a reason).
@Suite("Golden v1 records")
struct GoldenFileTests {
    static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Golden/events-v1.bin")

    static func records(_ bytes: [UInt8]) throws -> [[UInt8]] {
        var records: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            var length = 0
            var shift = 0
            while true {
                let byte = bytes[index]
                index += 1
                length |= Int(byte & 0x7f) << shift
                if byte < 0x80 { break }
                shift += 7
            }
            try #require(index + length <= bytes.count, "golden file ends inside a record")
            records.append(Array(bytes[index..<(index + length)]))
            index += length
        }
        return records
    }

    @Test("the golden events cover every event type")
    func coversEveryType() {
        #expect(Set(GoldenEvents.all.map(\.type)) == Set(EventType.allCases))
    }

    @Test("the committed v1 records decode to the values written out in GoldenEvents")
    func decodesCommittedRecords() throws {
        let records = try Self.records(Array(try Data(contentsOf: Self.url)))
        try #require(records.count == GoldenEvents.all.count)
        for (index, (record, expected)) in zip(records, GoldenEvents.all).enumerated() {
            let decoded = try EventCodec.decode(record)
            #expect(
                decoded == expected, "golden record \(index) (\(expected.type)): \(firstDifference(expected, decoded))")
        }
    }

    @Test("re-encoding the decoded records gives the committed bytes exactly")
    func reencodingIsByteStable() throws {
        let bytes = Array(try Data(contentsOf: Self.url))
        var reencoded: [UInt8] = []
        for record in try Self.records(bytes) {
            let event = try EventCodec.decode(record)
            let encoded = EventCodec.encoded(event)
            reencoded.appendLEB128(encoded.count)
            reencoded += encoded
        }
        #expect(reencoded == bytes)
    }

    @Test(
        "the golden file written from GoldenEvents reads back as them",
        .enabled(if: ProcessInfo.processInfo.environment["SUBLEDGER_WRITE_GOLDEN"] == "1", "writes only on request"))
    func writeGoldenFile() throws {
        var bytes: [UInt8] = []
        for event in GoldenEvents.all {
            let encoded = EventCodec.encoded(event)
            bytes.appendLEB128(encoded.count)
            bytes += encoded
        }
        try FileManager.default.createDirectory(
            at: Self.url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: Self.url)
        #expect(try Self.records(Array(try Data(contentsOf: Self.url))).map(EventCodec.decode) == GoldenEvents.all)
    }
}

extension [UInt8] {
    mutating func appendLEB128(_ value: Int) {
        var value = value
        while value >= 0x80 {
            append(UInt8(value & 0x7f) | 0x80)
            value >>= 7
        }
        append(UInt8(value))
    }
}
