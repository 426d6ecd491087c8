/// The result of checking every frame and the hash chain of a log directory.
public struct LogVerification: Sendable {
    public var segments: Int
    public var records: UInt64
    public var bytes: Int64
    public var problems: [LogProblem]

    public var ok: Bool { problems.isEmpty }
}

extension LogReader {
    /// Checks every frame's CRC and length, every sealed segment's footer against its records,
    /// and the hash chain between segments; lists every problem found (it does not stop at the
    /// first). A torn tail in the last segment is listed too: the writer would cut it on open.
    /// `progress` is told, before each segment, how many of how many are checked.
    public func verify(progress: (_ segmentsChecked: Int, _ segments: Int) -> Void = { _, _ in }) throws -> LogVerification {
        // Only a marker the walk began and ended with counts: a writer that opened meanwhile
        // removed it before appending what the walk may have seen.
        let (walked, closed) = try ClosedMarker.end(in: directory) { try walkSegments(progress) }
        var result = walked.verification
        guard let closedEnd = closed else { return result }
        let last = walked.last
        guard let last else {
            result.problems.append(LogProblem(file: directory, offset: 0, kind: .truncated, detail: "the log has no segment, yet it was closed cleanly at position \(closedEnd): its files were removed"))
            return result
        }
        if let problem = last.walk.problem(closedCleanlyAt: closedEnd, segment: last.segment) {
            result.problems.removeAll { $0.kind == .tornTail && $0.file == last.segment.path }
            result.problems.append(problem)
        }
        return result
    }

    /// Every segment walked and checked, and the last one with its walk.
    private func walkSegments(_ progress: (Int, Int) -> Void) throws -> (verification: LogVerification, last: (segment: SegmentList.Segment, walk: SegmentWalk)?) {
        let list: SegmentList
        do { list = try SegmentList(directory: directory) } catch { throw LogError.io(error) }
        var result = LogVerification(segments: list.segments.count, records: 0, bytes: 0, problems: [])
        var previousFooterHash = [UInt8](repeating: 0, count: 32)
        // A log starts at position 0: a first segment that starts later was preceded by one removed.
        var expectedFirst: UInt64 = 0
        var last: (segment: SegmentList.Segment, walk: SegmentWalk)?
        for (i, segment) in list.segments.enumerated() {
            progress(i, list.segments.count)
            let isLast = i == list.segments.count - 1
            var bytes: [UInt8]
            do { bytes = try readWholeFile(segment.path) } catch { throw LogError.io(error) }
            var walk = SegmentWalk(file: segment.path, bytes: bytes)
            // A writer beside may be copying its last frame in (`LogReader.tailRereads`).
            var rereads = 0
            while isLast, !walk.problems.isEmpty || walk.tornTail != nil, pausingToReread(&rereads) {
                do { bytes = try readWholeFile(segment.path) } catch { throw LogError.io(error) }
                walk = SegmentWalk(file: segment.path, bytes: bytes)
            }
            result.bytes += Int64(bytes.count) - walk.zeroTail
            result.records += walk.recordsFound
            result.problems += walk.problems
            if isLast { last = (segment, walk) }
            // Only the last segment is appended to: an earlier one's tail was damaged or cut.
            if isLast, let torn = walk.tornTail {
                result.problems.append(LogProblem(
                    file: segment.path, offset: torn.offset, kind: .tornTail, detail: "\(torn.bytes) bytes of an interrupted append (cut when the log is next opened for writing)"))
            } else if !isLast, let problem = walk.sealedTailProblem(file: segment.path) {
                result.problems.append(problem)
            }
            func chain(_ offset: Int64, _ detail: String) {
                result.problems.append(LogProblem(file: segment.path, offset: offset, kind: .chainMismatch, detail: detail))
            }
            if let problem = segment.startProblem(expected: expectedFirst) { result.problems.append(problem) }
            if let header = walk.header {
                if header.firstPosition != segment.firstPosition { chain(0, "segment header names position \(header.firstPosition), the file name \(segment.firstPosition)") }
                if header.previousFooterHash != previousFooterHash { chain(0, "segment header does not carry the previous segment's footer hash") }
            }
            if let footer = walk.footer, let footerOffset = walk.footerOffset {
                if !walk.footerFollowsDamage, footer.recordCount != walk.recordCount || footer.recordsHash != walk.recordsHasher.digest() {
                    chain(footerOffset, "records do not match the footer's count and SHA-256 (edited after sealing)")
                }
                if footer.previousFooterHash != previousFooterHash { chain(footerOffset, "footer does not link to the previous segment's footer") }
                if footer.footerHash != Frame.Footer.hash(firstPosition: segment.firstPosition, recordCount: footer.recordCount, recordsHash: footer.recordsHash, previousFooterHash: footer.previousFooterHash) {
                    chain(footerOffset, "footer hash does not match its contents")
                }
                previousFooterHash = footer.footerHash
            } else if !isLast {
                chain(Int64(bytes.count), "sealed segment has no valid footer")
            }
            expectedFirst = segment.firstPosition + UInt64(walk.sealedLength)
        }
        return (result, last)
    }
}

extension LogReader {
    /// Whether `position`, where no record reads, is the ledger's damage rather than a number
    /// inside a record: true when a scan of its segment from the start fails at or before it
    /// (damage there, or earlier, past which no position can be judged); false when the scan
    /// passes it inside a record. Reads that segment up to `position`, a chunk at a time.
    public func damageBegins(at position: LogPosition) throws -> Bool {
        let list: SegmentList
        do { list = try SegmentList(directory: directory) } catch { throw LogError.io(error) }
        guard let index = list.index(containing: position.rawValue) else { return false }
        let segment = list.segments[index]
        do {
            try scan(from: LogPosition(rawValue: segment.firstPosition)) { entry in entry.position < position }
        } catch LogError.corrupted(let problem) {
            return problem.file != segment.path || UInt64(problem.offset) <= position.rawValue - segment.firstPosition
        }
        return false
    }
}
