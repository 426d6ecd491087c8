import SubledgerCore
import Foundation
import SubledgerTestSupport
import Testing
@testable import SubledgerLog

@Suite("Log recovery and corruption")
struct LogRecoveryTests {
    /// A log of `count` records in one segment; returns the records' positions and payloads.
    func makeLog(_ dir: TemporaryDirectory, count: Int, segmentSize: Int64 = 64 << 20) throws -> [(LogPosition, [UInt8])] {
        var random = SeededGenerator(state: 99)
        let writer = try LogWriter(directory: dir.path, options: LogOptions(segmentSize: segmentSize))
        var out: [(LogPosition, [UInt8])] = []
        for i in 0..<count {
            let p = payload(for: i, random: &random)
            out.append((try writer.append([LogRecord(kind: 1, payload: p)])[0], p))
        }
        writer.close()
        return out
    }

    @Test("a log whose directory is moved or replaced while open appends nothing more, there or to the directory now at its path, and leaves that one's files as they were")
    func directoryReplacedWhileOpen() throws {
        let root = TemporaryDirectory()
        let (path, aside) = (root.file("log"), root.file("log.aside"))
        let writer = try LogWriter(directory: path)
        let first = try writer.append([LogRecord(kind: 1, payload: [1, 2, 3])])[0]
        try FileManager.default.moveItem(atPath: path, toPath: aside)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let refused = #expect(throws: LogError.self) { try writer.append([LogRecord(kind: 1, payload: [4, 5, 6])]) }
        #expect(refused.map { "\($0)" }?.contains("was moved or replaced while the log was open") == true, "\(String(describing: refused))")
        writer.close()
        #expect(try FileManager.default.contentsOfDirectory(atPath: path).isEmpty, "no segment, marker or lock in the directory now at the path")
        let kept = try LogReader(directory: aside).summary()
        #expect(kept.records == 1 && kept.lastPosition == first)
    }

    @Test("damage a read met is named as the log's check names it: a last frame a crash cut short is a torn tail, a flipped byte earlier is damage")
    func verifiedNamesTheProblem() throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 10)
        dir.forgetCleanClose()
        let segment = try dir.segments().last!
        var bytes = readFile(segment)
        let last = Int(records.last!.0.rawValue)
        for offset in last + 14..<last + 24 { bytes[offset] = 0 }
        writeFile(segment, bytes)
        let read = LogProblem(file: segment, offset: Int64(last), kind: .crcMismatch, detail: "frame checksum does not match")
        guard case .corrupted(let torn) = LogError.corrupted(read).verified() else { Issue.record("not corrupted"); return }
        #expect(torn.kind == .tornTail)
        #expect("\(LogError.corrupted(torn))".contains("cut when the log is next opened for writing"))
        #expect(!"\(LogError.corrupted(torn))".contains("restore"))

        let first = Int(records[1].0.rawValue)
        bytes[first + 12] ^= 0xFF
        writeFile(segment, bytes)
        guard case .corrupted(let damage) = LogError.corrupted(read).verified() else { Issue.record("not corrupted"); return }
        #expect(damage.kind == .crcMismatch)
        #expect(damage.offset == Int64(first))
    }

    @Test("a last frame that reads as damage while a writer beside is still copying it in is read again: summary and verify see it whole; damage that stays is damage")
    func frameBeingWrittenIsReadAgain() throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 10)
        dir.forgetCleanClose()
        let segment = try dir.segments().last!
        let whole = readFile(segment)
        var half = whole
        let last = Int(records.last!.0.rawValue)
        for offset in last + 14..<last + 24 { half[offset] = 0 }
        // The writer thread may start late on a loaded machine: re-read for up to ~40 s, not
        // the product's ~30 ms (`LogReader.tailRereads`); a re-read stops once the frame checks.
        var reader = LogReader(directory: dir.path)
        reader.rereadsAtTail = 200
        let checks: [() throws -> Void] = [{ [reader] in
            let summary = try reader.summary()
            #expect(summary.records == 10)
        }, { [reader] in
            let verified = try reader.verify()
            #expect(verified.ok)
        }]
        // In place, as a writer writes: a reader keeps the file it opened.
        @Sendable func copyIn() {
            let handle = FileHandle(forUpdatingAtPath: segment)!
            try! handle.seek(toOffset: UInt64(last))
            handle.write(Data(whole[last..<(last + 24)]))
            try! handle.close()
        }
        for check in checks {
            writeFile(segment, half)
            let copied = Thread { usleep(1_000); copyIn() }
            copied.start()
            try check()
            while readFile(segment) != whole { usleep(1_000) }
        }
        #expect(try LogReader(directory: dir.path).summary().records == 10)
        writeFile(segment, half)
        #expect(throws: LogError.self) { try LogReader(directory: dir.path).summary() }
        #expect(try !LogReader(directory: dir.path).verify().ok)
    }

    @Test("a record damaged in a sealed segment is the one problem verify and a head's audit name: the footer past it still links the chain")
    func damageInSealedSegmentNamedAlone() throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 120, segmentSize: 64 << 10)
        let segments = try dir.segments()
        try #require(segments.count >= 3)
        var bytes = readFile(segments[0])
        let flipped = Int(records[1].0.rawValue) + 10 + 1
        bytes[flipped] ^= 0x20
        writeFile(segments[0], bytes)
        let reader = LogReader(directory: dir.path, writerMayBeBeside: false)
        let problems = try reader.verify().problems
        #expect(problems.map(\.kind) == [.crcMismatch] && problems.first?.file == segments[0], "\(problems)")
        #expect(problems.first?.offset == Int64(records[1].0.rawValue))
        let audit = try reader.auditPrefix(through: records.last!.0) { _ in }
        #expect(audit.findings.map(\.problem.kind) == [.crcMismatch], "\(audit.findings)")
    }

    @Test("truncating the last segment at every byte of its last frames loses exactly the incomplete frame")
    func tornTailAtEveryOffset() throws {
        let dir = TemporaryDirectory(inMemory: true)
        let records = try makeLog(dir, count: 40)
        let segment = try dir.segments().last!
        let dataEnd = Int(records.last!.0.rawValue) + 10 + records.last!.1.count
        let original = Array(readFile(segment)[..<dataEnd])
        let lastTwo = Int(records[records.count - 2].0.rawValue)
        for cut in lastTwo..<original.count {
            writeFile(segment, Array(original[..<cut]))
            dir.forgetCleanClose()
            let writer = try LogWriter(directory: dir.path, options: LogOptions(preallocationStep: 0))
            let survivors = records.filter { Int($0.0.rawValue) + 10 + $0.1.count <= cut }
            // Trailing zero bytes of a torn frame look like preallocated space: not counted.
            let survivorsEnd = survivors.last.map { Int($0.0.rawValue) + 10 + $0.1.count } ?? 0
            let torn = original[survivorsEnd..<cut]
            let expected = torn.lastIndex { $0 != 0 }.map { $0 + 1 - survivorsEnd } ?? 0
            #expect(writer.recovery.truncatedBytes == Int64(expected))
            writer.close()
            let read = try readAll(dir.path)
            #expect(read.count == survivors.count, "cut at \(cut)")
            #expect(read.last?.2 == survivors.last?.1)
        }
    }

    @Test("a zero-filled tail (preallocated, never written) is not damage: records stay, nothing is reported")
    func zeroFilledTail() throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 10)
        let segment = try dir.segments().last!
        writeFile(segment, readFile(segment) + Array(repeating: 0, count: 4096))
        #expect(try readAll(dir.path).count == records.count)
        #expect(try LogReader(directory: dir.path).verify().ok)
        let writer = try LogWriter(directory: dir.path)
        #expect(writer.recovery.truncatedBytes == 0)
        writer.close()
        #expect(try readAll(dir.path).count == records.count)
    }

    @Test("a torn append followed by preallocated zeros is cut, counting only the torn bytes")
    func tornThenZeros() throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 10)
        dir.forgetCleanClose()
        let segment = try dir.segments().last!
        let end = Int(records.last!.0.rawValue) + 10 + records.last!.1.count
        writeFile(segment, Array(readFile(segment)[..<end]) + [7, 0, 0, 0, 1, 2, 3] + Array(repeating: 0, count: 4096))
        let writer = try LogWriter(directory: dir.path)
        #expect(writer.recovery.truncatedBytes == 7)
        writer.close()
        #expect(try readAll(dir.path).count == records.count)
    }

    @Test("after a crash, a flipped byte in the tail frame is treated as torn and cut: it may be an append cut short")
    func flippedTailByte() throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 10)
        dir.forgetCleanClose()
        let segment = try dir.segments().last!
        var bytes = readFile(segment)
        bytes[Int(records.last!.0.rawValue) + 10] ^= 0x40
        writeFile(segment, bytes)
        let writer = try LogWriter(directory: dir.path)
        #expect(writer.recovery.truncatedBytes > 0)
        writer.close()
        #expect(try readAll(dir.path).count == records.count - 1)
    }

    @Test("closed cleanly, a flipped byte in the last record is damage: open refuses, verify names it, nothing is cut")
    func flippedTailAfterCleanClose() throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 10)
        let segment = try dir.segments().last!
        var bytes = readFile(segment)
        let last = Int(records.last!.0.rawValue)
        bytes[last + 10] ^= 0x40
        writeFile(segment, bytes)
        #expect {
            _ = try LogWriter(directory: dir.path)
        } throws: { error in
            guard case LogError.corrupted(let problem) = error else { return false }
            return problem.kind == .crcMismatch && problem.offset == Int64(last) && "\(error)".contains("restore")
        }
        #expect(try LogReader(directory: dir.path).verify().problems.map(\.kind) == [.crcMismatch])
        #expect(readFile(segment) == bytes, "nothing was cut")
        guard case .corrupted(let named) = LogError.corrupted(LogProblem(file: segment, offset: Int64(last), kind: .crcMismatch, detail: "")).verified() else {
            Issue.record("not corrupted")
            return
        }
        #expect(named.kind == .crcMismatch)
    }

    @Test("closed cleanly, the tail is named by where it lies against the end the close recorded: bytes after it that are no record, a last record whose length field is damaged, and one cut short", arguments: ["appended", "length", "cut"])
    func closedTailNamedByPlace(damage: String) throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 10)
        let segment = try dir.segments().last!
        var bytes = readFile(segment)
        let last = Int(records.last!.0.rawValue)
        switch damage {
        case "appended": bytes += [7, 7, 7]
        case "length": bytes[last + 2] ^= 0x40
        default: bytes.removeLast(3)
        }
        writeFile(segment, bytes)
        let expected: (LogProblem.Kind, String) = switch damage {
        case "appended": (.badLength, "3 bytes that are no record follow the end the log was closed cleanly at")
        case "length": (.crcMismatch, "the last record fails its check")
        default: (.crcMismatch, "the log ends inside its last record")
        }
        #expect {
            _ = try LogWriter(directory: dir.path)
        } throws: { error in
            guard case LogError.corrupted(let problem) = error else { return false }
            return problem.kind == expected.0 && problem.detail.contains(expected.1)
        }
        #expect(readFile(segment) == bytes, "nothing was cut")
    }

    @Test("closed cleanly, a log cut short, or an older copy of its segment, is damage for open, verify and its summary")
    func cutShortAfterCleanClose() throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 10)
        let segment = try dir.segments().last!
        let wholeRecords = Int(records[6].0.rawValue)
        let original = readFile(segment)
        for cut in [wholeRecords, wholeRecords + 5] {
            writeFile(segment, Array(original[..<cut]))
            #expect(throws: LogError.self) { _ = try LogWriter(directory: dir.path) }
            #expect(try LogReader(directory: dir.path).verify().problems.contains { $0.kind == .truncated || $0.kind == .crcMismatch }, "cut at \(cut)")
            #expect(throws: LogError.self) { _ = try LogReader(directory: dir.path).summary() }
        }
    }

    @Test("appended to past its clean-close marker (a build that does not know it), the log is refused saying its records are whole and removing the marker takes them, not to restore a backup; one cut short still says restore")
    func appendedPastTheMarker() throws {
        let dir = TemporaryDirectory()
        _ = try makeLog(dir, count: 3)
        let marker = dir.path + "/" + ClosedMarker.name
        let stale = readFile(marker)
        let writer = try LogWriter(directory: dir.path)
        _ = try writer.append([LogRecord(kind: 1, payload: [1, 2, 3])])
        writer.close()
        writeFile(marker, stale)
        for open in [{ _ = try LogWriter(directory: dir.path) }, { _ = try LogReader(directory: dir.path).summary() }] as [() throws -> Void] {
            let refused = #expect(throws: LogError.self) { try open() }
            let said = refused.map { "\($0)" } ?? ""
            #expect(said.contains("older than 2026-12-05") && said.contains("remove CLOSED") && !said.contains("restore the segment from a backup"), "\(said)")
        }
        #expect(try LogReader(directory: dir.path).verify().problems.contains { $0.detailAndRemedy.contains("remove CLOSED from this log's directory") })
        try FileManager.default.removeItem(atPath: marker)
        #expect(try LogReader(directory: dir.path).summary().records == 4)

        let segment = try dir.segments().last!
        let original = readFile(segment)
        writeFile(segment, Array(original[..<(original.count - 5)]))
        writeFile(marker, Array("\(try LogReader(directory: dir.path).summary().endPosition.rawValue + 5)\n".utf8))
        let cut = #expect(throws: LogError.self) { _ = try LogReader(directory: dir.path).summary() }
        #expect(cut.map { "\($0)" }?.contains("restore the segment from a backup") == true)
    }

    @Test("a session that appends nothing leaves the clean-close marker; the first append removes it, so a crash after it recovers as before")
    func markerFollowsAppends() throws {
        let dir = TemporaryDirectory()
        _ = try makeLog(dir, count: 3)
        let marker = dir.path + "/" + ClosedMarker.name
        let closed = try #require(ClosedMarker.end(in: dir.path))
        let reader = try LogWriter(directory: dir.path)
        reader.close()
        #expect(ClosedMarker.end(in: dir.path) == closed)
        let writer = try LogWriter(directory: dir.path)
        #expect(FileManager.default.fileExists(atPath: marker))
        let appended = try writer.append([LogRecord(kind: 1, payload: [1, 2, 3])])
        #expect(!FileManager.default.fileExists(atPath: marker))
        writer.close()
        #expect(ClosedMarker.end(in: dir.path) == LogPosition(rawValue: appended[0].rawValue + 13))
        #expect(try LogReader(directory: dir.path).summary().endPosition == ClosedMarker.end(in: dir.path))
    }

    @Test("a sealed segment cut short is damage to restore, not a torn append")
    func sealedSegmentCutShort() throws {
        let dir = TemporaryDirectory()
        _ = try makeLog(dir, count: 60, segmentSize: 8 * 1024)
        let segments = try dir.segments()
        writeFile(segments[0], Array(readFile(segments[0]).prefix(5000)))
        dir.forgetCleanClose()
        let problems = try LogReader(directory: dir.path).verify().problems
        #expect(problems.first?.kind == .truncated && problems.first?.file == segments[0])
        #expect(!problems.contains { $0.kind == .tornTail })
        guard case .corrupted(let named) = LogError.corrupted(LogProblem(file: segments[0], offset: 0, kind: .tornTail, detail: "")).verified() else {
            Issue.record("not corrupted")
            return
        }
        #expect("\(LogError.corrupted(named))".contains("restore"))
    }

    @Test("a removed first segment is named with the positions it held, by verify, a writer's open and a head's audit alike")
    func removedFirstSegment() throws {
        let dir = TemporaryDirectory()
        _ = try makeLog(dir, count: 60, segmentSize: 8 * 1024)
        let segments = try dir.segments()
        try FileManager.default.removeItem(atPath: segments[0])
        let problems = try LogReader(directory: dir.path).verify().problems
        #expect(problems.first?.file == segments[1] && problems.first?.kind == .truncated)
        #expect(problems.first?.detail.contains("00000000000000000000.seg was removed") == true)
        // Opening for writing, and a digest, name it too, rather than the next segment's chain.
        #expect {
            _ = try LogWriter(directory: dir.path)
        } throws: { error in
            guard case LogError.corrupted(let problem) = error else { return false }
            return problem.kind == .truncated && problem.detail.contains("00000000000000000000.seg was removed")
        }
        #expect(throws: LogError.self) { _ = try LogReader(directory: dir.path).prefixDigest(through: LogPosition(rawValue: 20_000)) }
        let audit = try LogReader(directory: dir.path).auditPrefix(through: LogPosition(rawValue: 20_000)) { _ in }
        #expect(audit.findings.first?.problem.kind == .truncated && audit.findings.first?.problem.detail.contains("00000000000000000000.seg was removed") == true, "\(audit.findings)")
    }

    @Test("a flipped byte inside an early frame makes open refuse and verify report the file and offset")
    func midFileCorruption() throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 20)
        let segment = try dir.segments().last!
        var bytes = readFile(segment)
        let target = Int(records[3].0.rawValue)
        bytes[target + 12] ^= 0x01
        writeFile(segment, bytes)
        #expect {
            _ = try LogWriter(directory: dir.path)
        } throws: { error in
            guard case LogError.corrupted(let problem) = error else { return false }
            return problem.file == segment && problem.offset == Int64(target) && problem.kind == .crcMismatch
        }
        let report = try LogReader(directory: dir.path).verify()
        #expect(!report.ok)
        #expect(report.problems.contains { $0.file == segment && $0.offset == Int64(target) && $0.kind == .crcMismatch })
        #expect(throws: LogError.self) { try readAll(dir.path) }
    }

    @Test("a damaged length field is reported as bad_length and the records after it are found")
    func damagedLength() throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 20)
        let segment = try dir.segments().last!
        var bytes = readFile(segment)
        let target = Int(records[5].0.rawValue)
        bytes[target + 3] = 0xFF
        writeFile(segment, bytes)
        let report = try LogReader(directory: dir.path).verify()
        #expect(report.problems.map(\.kind) == [.badLength])
        #expect(report.problems.first?.offset == Int64(target))
        #expect(report.records == 19)
    }

    @Test("a flipped byte in a sealed segment's footer makes open refuse, and verify and a head's audit name it as a frame that fails its check, not as a cut or a torn append")
    func damagedFooter() throws {
        let dir = TemporaryDirectory()
        _ = try makeLog(dir, count: 60, segmentSize: 8 * 1024)
        let segments = try dir.segments()
        #expect(segments.count > 2)
        var bytes = readFile(segments[0])
        bytes[bytes.count - 20] ^= 0x80
        writeFile(segments[0], bytes)
        #expect(throws: LogError.self) { _ = try LogWriter(directory: dir.path) }
        let reader = LogReader(directory: dir.path)
        let report = try reader.verify()
        let footer = Int64(bytes.count - LogFormat.footerFrameSize)
        #expect(report.problems.contains { $0.file == segments[0] && $0.offset == footer && $0.kind == .crcMismatch }, "\(report.problems)")
        #expect(!report.problems.contains { $0.kind == .truncated || $0.kind == .tornTail }, "\(report.problems)")
        let audit = try reader.auditPrefix(through: LogPosition(rawValue: UInt64(readFile(segments[0]).count) + 100)) { _ in }
        #expect(audit.findings.contains { $0.problem.file == segments[0] && $0.problem.offset == footer && $0.problem.kind == .crcMismatch }, "\(audit.findings)")
        #expect(!audit.findings.contains { $0.problem.kind == .truncated || $0.problem.kind == .tornTail }, "\(audit.findings)")
    }

    @Test("a sealed segment's tail is named for what it is: bytes added after an intact footer as data after it, a footer whose length field is damaged as a last frame that fails its check, not as a cut", arguments: ["appended", "length"])
    func sealedTailNamed(damage: String) throws {
        let dir = TemporaryDirectory()
        _ = try makeLog(dir, count: 60, segmentSize: 8 * 1024)
        let segments = try dir.segments()
        var bytes = readFile(segments[0])
        let footer = bytes.count - LogFormat.footerFrameSize
        if damage == "appended" { bytes += [7, 7, 7] } else { bytes[footer + 1] ^= 0x40 }
        writeFile(segments[0], bytes)
        let all = try LogReader(directory: dir.path).verify().problems
        // Bytes after an intact footer are this segment's alone; a footer that does not read
        // leaves the next segment's links to the chain named too, as its hash is unknown.
        if damage == "appended" { #expect(!all.contains { $0.file != segments[0] }, "the next segment is not blamed: \(all)") }
        let problems = all.filter { $0.file == segments[0] }
        let expected = damage == "appended"
            ? (offset: Int64(footer + LogFormat.footerFrameSize), kind: LogProblem.Kind.badLength)
            : (offset: Int64(footer), kind: LogProblem.Kind.crcMismatch)
        #expect(problems.contains { $0.offset == expected.offset && $0.kind == expected.kind }, "\(problems)")
        #expect(!problems.contains { $0.kind == .truncated || $0.kind == .tornTail }, "\(problems)")
    }

    @Test("an edit with a recomputed frame CRC is caught by the hash chain")
    func editWithValidCRC() throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 60, segmentSize: 8 * 1024)
        let segments = try dir.segments()
        var bytes = readFile(segments[0])
        let target = Int(records[2].0.rawValue)
        let length = Int(bytes[target]) | Int(bytes[target + 1]) << 8
        bytes[target + 10] ^= 0xFF
        let crc = CRC32C.mask(CRC32C.checksum(Array(bytes[(target + 8)..<(target + 10 + length)])))
        withUnsafeBytes(of: crc.littleEndian) { for i in 0..<4 { bytes[target + 4 + i] = $0[i] } }
        writeFile(segments[0], bytes)
        let report = try LogReader(directory: dir.path).verify()
        #expect(report.problems.map(\.kind) == [.chainMismatch])
        #expect(report.problems.first?.file == segments[0])
    }

    @Test("a crash while creating a new segment leaves a header-less file that open removes")
    func crashDuringRoll() throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 30, segmentSize: 8 * 1024)
        dir.forgetCleanClose()
        // The state a crash leaves between sealing a segment and writing the next one's header:
        // the newest file exists but holds only part of its header.
        let active = try dir.segments().last!
        let sealedRecords = records.filter { $0.0.rawValue < LogFormat.firstPosition(ofSegmentNamed: String(active.split(separator: "/").last!))! }
        writeFile(active, Array(repeating: 0, count: 20))
        let writer = try LogWriter(directory: dir.path, options: LogOptions(segmentSize: 8 * 1024))
        #expect(writer.recovery.truncatedBytes == 20)
        let next = try writer.append([LogRecord(kind: 1, payload: [42])])
        writer.close()
        let read = try readAll(dir.path)
        #expect(read.count == sealedRecords.count + 1)
        #expect(read.last?.0 == next[0])
        #expect(try LogReader(directory: dir.path).verify().ok)
    }

    @Test("verify passes on a healthy multi-segment log and counts every record")
    func verifyHealthy() throws {
        let dir = TemporaryDirectory()
        let records = try makeLog(dir, count: 80, segmentSize: 8 * 1024)
        let report = try LogReader(directory: dir.path).verify()
        #expect(report.ok)
        #expect(report.records == UInt64(records.count))
        #expect(report.segments == (try dir.segments().count))
    }
}
