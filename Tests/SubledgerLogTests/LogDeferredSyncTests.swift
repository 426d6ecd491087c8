import SubledgerTestSupport
import Testing
@testable import SubledgerLog

/// `write` then `sync` (two logs made durable at once) and `truncate(from:)` (a caller's
/// recovery) keep the log what `append` makes it: the same positions, a chain that verifies.
@Suite("Log: writes synced later, and cuts")
struct LogDeferredSyncTests {
    @Test("records written then synced read back like appended ones, and the next open names the last record and the end")
    func writeThenSync() throws {
        let dir = TemporaryDirectory()
        var random = SeededGenerator(state: 7)
        let payloads = (0..<30).map { payload(for: $0, random: &random) }
        let writer = try LogWriter(directory: dir.path)
        var positions: [LogPosition] = []
        for batch in stride(from: 0, to: 20, by: 5) {
            positions += try writer.write(payloads[batch..<batch + 5].map { LogRecord(kind: 1, payload: $0) })
            try writer.sync()
        }
        positions += try writer.append(payloads[20...].map { LogRecord(kind: 1, payload: $0) })
        writer.close()

        let read = try readAll(dir.path)
        #expect(read.map(\.0) == positions)
        #expect(read.map(\.2) == payloads)
        let reopened = try LogWriter(directory: dir.path)
        defer { reopened.close() }
        #expect(reopened.openedTail.lastRecord == positions.last)
        #expect(reopened.openedTail.end.rawValue == positions.last!.rawValue + 10 + UInt64(payloads.last!.count))
        #expect(try LogReader(directory: dir.path).verify().ok)
    }

    @Test("truncating from a record of the active segment cuts it and all after it; appends then continue a chain that verifies")
    func truncateThenAppend() throws {
        let dir = TemporaryDirectory()
        var random = SeededGenerator(state: 8)
        let written = try appendOneByOne(80, to: dir.path, random: &random)
        #expect(try dir.segments().count > 2)

        let writer = try LogWriter(directory: dir.path, options: Self.smallSegments)
        let active = written.filter { $0.0 >= writer.openedTail.segmentStart }
        #expect(active.count >= 3)
        let cut = active[active.count - 3].0
        try writer.truncate(from: cut)
        let kept = written.filter { $0.0 < cut }
        let more = (0..<40).map { payload(for: 100 + $0, random: &random) }
        let appended = try more.map { try writer.append([LogRecord(kind: 1, payload: $0)])[0] }
        writer.close()

        #expect(appended.first == cut)
        let read = try readAll(dir.path)
        #expect(read.map(\.2) == kept.map(\.1) + more)
        let verification = try LogReader(directory: dir.path).verify()
        #expect(verification.ok)
        #expect(verification.records == UInt64(kept.count + more.count))
    }

    @Test("truncating from a position outside the active segment is refused and changes nothing")
    func truncateOutsideActiveSegment() throws {
        let dir = TemporaryDirectory()
        var random = SeededGenerator(state: 9)
        let first = try appendOneByOne(60, to: dir.path, random: &random)[0].0

        let writer = try LogWriter(directory: dir.path, options: Self.smallSegments)
        #expect(first < writer.openedTail.segmentStart)
        #expect(throws: LogError.self) { try writer.truncate(from: first) }
        writer.close()
        #expect(try readAll(dir.path).count == 60)
    }

    static let smallSegments = LogOptions(segmentSize: 8 * 1024)

    /// Appends `count` records one append each into 8 KiB segments, then closes the log.
    private func appendOneByOne(_ count: Int, to directory: String, random: inout SeededGenerator) throws -> [(LogPosition, [UInt8])] {
        let writer = try LogWriter(directory: directory, options: Self.smallSegments)
        defer { writer.close() }
        return try (0..<count).map { index in
            let bytes = payload(for: index, random: &random)
            return (try writer.append([LogRecord(kind: 1, payload: bytes)])[0], bytes)
        }
    }
}
