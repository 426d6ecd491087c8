import Foundation
import SubledgerTestSupport
import Testing
@testable import SubledgerLog

/// Records whose payload encodes their index, so a reader can check it got the right one.
func payload(for index: Int, random: inout SeededGenerator) -> [UInt8] {
    let size = [0, 1, 13, 200, 1000, 5000][Int(random.next() % 6)]
    var bytes = withUnsafeBytes(of: UInt32(index).littleEndian) { Array($0) }
    bytes += random.bytes(size)
    return bytes
}

func readAll(_ directory: String, from start: LogPosition = .start) throws -> [(LogPosition, UInt8, [UInt8])] {
    var out: [(LogPosition, UInt8, [UInt8])] = []
    try LogReader(directory: directory).scan(from: start) { entry in
        out.append((entry.position, entry.kind, Array(entry.payload)))
        return true
    }
    return out
}

@Suite("Log round trip")
struct LogRoundTripTests {
    @Test("records of varied sizes survive segment rolls and reopening, in order, from any position")
    func roundTrip() throws {
        let dir = TemporaryDirectory()
        var random = SeededGenerator(state: 1)
        var written: [(LogPosition, UInt8, [UInt8])] = []
        do {
            let writer = try LogWriter(directory: dir.path, options: LogOptions(segmentSize: 32 * 1024))
            for batchStart in stride(from: 0, to: 600, by: 25) {
                let records = (batchStart..<(batchStart + 25)).map { LogRecord(kind: UInt8(1 + $0 % 3), payload: payload(for: $0, random: &random)) }
                let positions = try writer.append(records)
                written += zip(positions, records).map { ($0, $1.kind, $1.payload) }
            }
            writer.close()
        }
        #expect(try dir.segments().count > 5)
        let read = try readAll(dir.path)
        #expect(read.count == written.count)
        #expect(zip(read, written).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 && $0.2 == $1.2 })

        // Reopen and keep appending: positions continue after the last one.
        let writer = try LogWriter(directory: dir.path, options: LogOptions(segmentSize: 32 * 1024))
        #expect(writer.recovery.truncatedBytes == 0)
        let more = try writer.append([LogRecord(kind: 9, payload: [1, 2, 3])])
        #expect(more[0] > written.last!.0)
        writer.close()

        for index in [0, 1, 99, 300, 599] {
            let tail = try readAll(dir.path, from: written[index].0)
            #expect(tail.count == written.count - index + 1)
            #expect(tail.first?.2 == written[index].2)
            let record = try LogReader(directory: dir.path).record(at: written[index].0)
            #expect(record.payload == written[index].2)
        }
    }

    @Test("a scan bounded just past a record far larger than the span before it returns that record whole")
    func boundedScanOfALargeRecord() throws {
        let dir = TemporaryDirectory()
        let writer = try LogWriter(directory: dir.path)
        let small = try writer.append((0..<5).map { LogRecord(kind: 1, payload: [UInt8($0)]) })
        let large = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let big = try writer.append([LogRecord(kind: 2, payload: large)])[0]
        _ = try writer.append([LogRecord(kind: 1, payload: [9])])
        writer.close()
        var seen: [(LogPosition, [UInt8])] = []
        try LogReader(directory: dir.path).scan(from: small[3], to: LogPosition(rawValue: big.rawValue + 1)) { entry in
            seen.append((entry.position, Array(entry.payload)))
            return true
        }
        #expect(seen.map(\.0) == [small[3], small[4], big])
        #expect(seen.last?.1 == large)
    }

    @Test("a position far past the log's end, up to the largest a position can be, is no record rather than a trap", arguments: [
        UInt64(1) << 40, UInt64(Int64.max), UInt64(1) << 63, UInt64.max - 1,
    ])
    func positionsPastTheEnd(raw: UInt64) throws {
        let dir = TemporaryDirectory()
        let writer = try LogWriter(directory: dir.path)
        _ = try writer.append([LogRecord(kind: 1, payload: [1, 2, 3])])
        writer.close()
        let error = #expect(throws: LogError.self) { try LogReader(directory: dir.path).record(at: LogPosition(rawValue: raw)) }
        guard case .noRecord(let position) = error else { Issue.record("\(String(describing: error))"); return }
        #expect(position.rawValue == raw)
    }

    @Test("positions are strictly increasing and print and parse as decimal numbers")
    func positions() throws {
        let dir = TemporaryDirectory()
        let writer = try LogWriter(directory: dir.path)
        let positions = try writer.append((0..<50).map { LogRecord(kind: 1, payload: Array(repeating: UInt8($0), count: $0)) })
        #expect(zip(positions, positions.dropFirst()).allSatisfy { $0 < $1 })
        for position in positions { #expect(LogPosition(position.description) == position) }
        #expect(LogPosition("not a number") == nil)
    }

    @Test("summary counts segments, records and bytes, and names the last position")
    func summary() throws {
        let dir = TemporaryDirectory()
        let writer = try LogWriter(directory: dir.path, options: LogOptions(segmentSize: 4096))
        var last = LogPosition.start
        for i in 0..<100 { last = try writer.append([LogRecord(kind: 1, payload: Array(repeating: 7, count: 100 + i))])[0] }
        writer.close()
        let summary = try LogReader(directory: dir.path).summary()
        #expect(summary.records == 100)
        #expect(summary.lastPosition == last)
        #expect(summary.segments == (try dir.segments().count))
        // Sealed segments have their exact size; the active one is preallocated past its data.
        let sealedBytes = try dir.segments().dropLast().reduce(0) { $0 + readFile($1).count }
        let lastEnd = last.rawValue + 10 + 199
        #expect(summary.endPosition.rawValue == lastEnd)
        #expect(summary.bytes == Int64(lastEnd))
        #expect(UInt64(sealedBytes) < lastEnd)
    }

    @Test("a second writer on the same directory is refused, naming the holder's pid")
    func singleWriter() throws {
        let dir = TemporaryDirectory()
        let writer = try LogWriter(directory: dir.path)
        #expect {
            _ = try LogWriter(directory: dir.path)
        } throws: { error in
            guard case LogError.locked(_, let pid) = error else { return false }
            return pid == ProcessInfo.processInfo.processIdentifier
        }
        writer.close()
    }

    @Test("reserved kinds and oversized payloads are refused without writing anything")
    func invalidRecords() throws {
        let dir = TemporaryDirectory()
        let writer = try LogWriter(directory: dir.path)
        #expect(throws: LogError.self) { try writer.append([LogRecord(kind: 0, payload: [])]) }
        #expect(throws: LogError.self) { try writer.append([LogRecord(kind: 255, payload: [])]) }
        #expect(throws: LogError.self) { try writer.append([LogRecord(kind: 1, payload: Array(repeating: 0, count: LogFormat.maxPayloadSize + 1))]) }
        #expect(try LogReader(directory: dir.path).summary().records == 0)
    }

    @Test("many tasks appending at once: every acknowledged record is present exactly once, in acknowledgement order")
    func concurrentAppends() async throws {
        let dir = TemporaryDirectory()
        let writer = try LogWriter(directory: dir.path, options: LogOptions(segmentSize: 64 * 1024))
        let acknowledged = try await withThrowingTaskGroup(of: [(LogPosition, [UInt8])].self) { group in
            for task in 0..<16 {
                group.addTask {
                    var mine: [(LogPosition, [UInt8])] = []
                    for i in 0..<50 {
                        let payload = Array("task \(task) record \(i)".utf8)
                        let position = try await writer.append(LogRecord(kind: 1, payload: payload))
                        if let previous = mine.last { #expect(previous.0 < position) }
                        mine.append((position, payload))
                    }
                    return mine
                }
            }
            var all: [(LogPosition, [UInt8])] = []
            for try await mine in group { all += mine }
            return all
        }
        writer.close()
        let read = try readAll(dir.path)
        #expect(read.count == 16 * 50)
        let byPosition = Dictionary(uniqueKeysWithValues: read.map { ($0.0, $0.2) })
        for (position, payload) in acknowledged { #expect(byPosition[position] == payload) }
        #expect(Set(acknowledged.map(\.0)).count == acknowledged.count)
    }
}

@Suite("Writer lock")
struct WriterLockTests {
    @Test("a refused second writer leaves the holder's pid in the lock file")
    func refusedWriterKeepsPid() throws {
        let dir = TemporaryDirectory()
        let writer = try LogWriter(directory: dir.path)
        let before = readFile(dir.file("LOCK"))
        #expect(!before.isEmpty)
        for _ in 0..<3 { #expect(throws: LogError.self) { _ = try LogWriter(directory: dir.path) } }
        #expect(readFile(dir.file("LOCK")) == before)
        writer.close()
        let reopened = try LogWriter(directory: dir.path)
        reopened.close()
    }
}
