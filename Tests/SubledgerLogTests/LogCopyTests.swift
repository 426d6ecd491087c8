import Dispatch
import Foundation
import SubledgerTestSupport
import Synchronization
import Testing
@testable import SubledgerLog

@Suite("Log copy (backup of a live log)")
struct LogCopyTests {
    static let options = LogOptions(segmentSize: 32 * 1024)

    /// Appends in batches of ten: a batch never spans segments, so the log rolls as it grows.
    func append(_ writer: LogWriter, _ range: Range<Int>, _ random: inout SeededGenerator) throws {
        for start in stride(from: range.lowerBound, to: range.upperBound, by: 10) {
            _ = try writer.append((start..<min(start + 10, range.upperBound)).map { LogRecord(kind: 1, payload: payload(for: $0, random: &random)) })
        }
    }

    @Test("a copy taken while the writer appends holds every record acknowledged before it began, verifies, and opens for writing")
    func copyWhileAppending() throws {
        let source = TemporaryDirectory()
        let backup = TemporaryDirectory()
        let writer = try LogWriter(directory: source.path, options: Self.options)
        var random = SeededGenerator(state: 3)
        try append(writer, 0..<200, &random)
        let acknowledged = try readAll(source.path).count
        let stop = Atomic(false)
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            var random = SeededGenerator(state: 4)
            var index = 200
            while !stop.load(ordering: .relaxed) {
                _ = try? writer.append([LogRecord(kind: 1, payload: payload(for: index, random: &random))])
                index += 1
            }
            stopped.signal()
        }
        usleep(20_000)
        let summary = try LogCopy.copy(from: source.path, to: backup.path)
        stop.store(true, ordering: .relaxed)
        stopped.wait()
        writer.close()

        let copied = try readAll(backup.path)
        let original = try readAll(source.path)
        #expect(copied.count >= acknowledged)
        #expect(copied.count <= original.count)
        // A prefix of the source, record for record.
        #expect(zip(copied, original).allSatisfy { $0.0 == $1.0 && $0.2 == $1.2 })
        #expect(try LogReader(directory: backup.path).verify().ok)
        // The copy ends after its last record, or after the footer of a segment the writer sealed
        // while it was being copied.
        let recordsEnd = copied.last!.0.rawValue + UInt64(LogFormat.frameHeaderSize + copied.last!.2.count)
        let sealedWhileCopying = summary.end.rawValue == recordsEnd + UInt64(LogFormat.footerFrameSize)
        #expect(summary.end.rawValue == recordsEnd || sealedWhileCopying)
        let reopened = try LogWriter(directory: backup.path, options: Self.options)
        let next = try reopened.append([LogRecord(kind: 1, payload: [7])])
        reopened.close()
        if sealedWhileCopying {
            #expect(next[0].rawValue == summary.end.rawValue + UInt64(LogFormat.segmentHeaderSize))
        } else {
            // At the copy's end, or in a new segment when the copied one was full.
            #expect(next[0] == summary.end || next[0].rawValue == summary.end.rawValue + UInt64(LogFormat.footerFrameSize + LogFormat.segmentHeaderSize))
        }
    }

    @Test("a second copy into the same directory copies only the segments sealed since, and the active one")
    func incremental() throws {
        let source = TemporaryDirectory()
        let backup = TemporaryDirectory()
        var random = SeededGenerator(state: 5)
        let writer = try LogWriter(directory: source.path, options: Self.options)
        try append(writer, 0..<300, &random)
        let first = try LogCopy.copy(from: source.path, to: backup.path)
        let sealedAtFirst = try source.segments().count - 1
        #expect(sealedAtFirst >= 3)
        #expect(first.segmentsCopied == sealedAtFirst + 1)
        #expect(first.segmentsSkipped == 0)

        try append(writer, 300..<600, &random)
        writer.close()
        let second = try LogCopy.copy(from: source.path, to: backup.path)
        let segmentsNow = try source.segments().count
        // The segment that was active at the first copy has been sealed since: copied again.
        #expect(second.segmentsSkipped == sealedAtFirst)
        #expect(second.segmentsCopied == segmentsNow - sealedAtFirst)
        #expect(try readAll(backup.path).map(\.2) == readAll(source.path).map(\.2))
        #expect(try LogReader(directory: backup.path).verify().ok)

        let third = try LogCopy.copy(from: source.path, to: backup.path)
        #expect(third.segmentsCopied == 1)
        #expect(third.segmentsSkipped == segmentsNow - 1)
    }

    @Test("a copy up to a bound taken earlier holds exactly the records before it, also when the segment it fell in was sealed since; the next copy completes that segment")
    func copyUpToBound() throws {
        let source = TemporaryDirectory()
        let backup = TemporaryDirectory()
        var random = SeededGenerator(state: 8)
        let writer = try LogWriter(directory: source.path, options: Self.options)
        try append(writer, 0..<150, &random)
        let bound = try LogCopy.end(of: source.path)
        let before = try readAll(source.path)
        let segmentsAtBound = try source.segments().count
        try append(writer, 150..<450, &random)
        writer.close()
        #expect(try source.segments().count > segmentsAtBound, "the segment the bound fell in is sealed since")

        let copy = try LogCopy.copy(from: source.path, to: backup.path, upTo: bound)
        #expect(copy.end == bound)
        #expect(try readAll(backup.path).map(\.2) == before.map(\.2))
        #expect(try LogReader(directory: backup.path).verify().ok)

        _ = try LogCopy.copy(from: source.path, to: backup.path)
        #expect(try readAll(backup.path).map(\.2) == readAll(source.path).map(\.2))
        #expect(try LogReader(directory: backup.path).verify().ok)
    }

    @Test("a destination holding another log's sealed segments is refused, not overwritten")
    func anotherLogIsRefused() throws {
        let one = TemporaryDirectory()
        let other = TemporaryDirectory()
        let backup = TemporaryDirectory()
        var random = SeededGenerator(state: 6)
        for directory in [one, other] {
            let writer = try LogWriter(directory: directory.path, options: Self.options)
            try append(writer, 0..<200, &random)
            writer.close()
        }
        _ = try LogCopy.copy(from: one.path, to: backup.path)
        #expect(throws: LogCopy.Mismatch.self) { try LogCopy.copy(from: other.path, to: backup.path) }
        #expect(try readAll(backup.path).map(\.2) == readAll(one.path).map(\.2))
    }

    @Test("a segment that cannot be written into the copy is named in the error, so a full disk is known to be the backup's")
    func failedWriteNamesTheFile() throws {
        let source = TemporaryDirectory()
        let backup = TemporaryDirectory()
        let writer = try LogWriter(directory: source.path, options: Self.options)
        var random = SeededGenerator(state: 7)
        try append(writer, 0..<20, &random)
        writer.close()
        let first = try #require(try SegmentList(directory: source.path).segments.first)
        let blocked = backup.path + "/" + LogFormat.segmentName(firstPosition: first.firstPosition) + ".partial"
        // Writes there fail as on a full disk (ENOSPC).
        try FileManager.default.createSymbolicLink(atPath: blocked, withDestinationPath: "/dev/full")
        let error = #expect(throws: LogError.self) { try LogCopy.copy(from: source.path, to: backup.path) }
        #expect(String(describing: error).contains("pwrite \(blocked)"), "\(String(describing: error))")
        #expect(String(describing: error).contains("No space left on device"), "\(String(describing: error))")
    }
}
