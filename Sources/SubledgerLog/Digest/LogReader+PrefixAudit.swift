extension LogReader {
    /// Reads every segment up to `cut` and checks it as `verify` does (each frame's CRC, each
    /// sealed segment's footer against its records, the chain of footer hashes, segment names),
    /// and that the cut ends a record; computes the digest `prefixDigest(through:)` would give
    /// for these bytes. `record` sees every valid record before the cut, in order (damaged frames
    /// are skipped). Bytes after the cut are neither read nor judged.
    public func auditPrefix(through cut: LogPosition, _ record: (LogEntry) throws -> Void) throws -> LogPrefixAudit {
        let list = try segmentList()
        let hasher = LogPrefixHasher()
        var findings: [LogPrefixAudit.Finding] = []
        func note(_ segment: SegmentList.Segment, _ offset: Int64, _ kind: LogProblem.Kind, _ detail: String, atRecord: Bool = false) {
            note(segment, LogProblem(file: segment.path, offset: offset, kind: kind, detail: detail), atRecord: atRecord)
        }
        func note(_ segment: SegmentList.Segment, _ problem: LogProblem, atRecord: Bool = false) {
            findings.append(.init(problem: problem, position: LogPosition(rawValue: segment.firstPosition + UInt64(problem.offset)), atRecord: atRecord))
        }
        let last = cut.rawValue > UInt64(LogFormat.segmentHeaderSize) ? list.index(containing: cut.rawValue - 1) : nil
        var previousFooterHash = [UInt8](repeating: 0, count: 32)
        var expectedFirst: UInt64 = 0
        var cutSegmentEdited: LogPrefixAudit.Finding?
        for (index, segment) in list.segments.enumerated() where index <= (last ?? -1) {
            let bytes: [UInt8]
            do { bytes = try readWholeFile(segment.path) } catch { throw LogError.io(error) }
            if let problem = segment.startProblem(expected: expectedFirst) { note(segment, problem) }
            var length = Int64(bytes.count)
            if index < last! {
                let walk = SegmentWalk(file: segment.path, bytes: bytes)
                length = walk.sealedLength
                for problem in walk.problems { note(segment, problem, atRecord: problem.offset >= LogFormat.segmentHeaderSize) }
                if let problem = walk.sealedTailProblem(file: segment.path) { note(segment, problem) }
                if let header = walk.header {
                    if header.firstPosition != segment.firstPosition { note(segment, 0, .chainMismatch, "segment header names position \(header.firstPosition), the file name \(segment.firstPosition)") }
                    if header.previousFooterHash != previousFooterHash { note(segment, 0, .chainMismatch, "segment header does not carry the previous segment's footer hash") }
                }
                if let footer = walk.footer, let footerOffset = walk.footerOffset {
                    if !walk.footerFollowsDamage, footer.recordCount != walk.recordCount || footer.recordsHash != walk.recordsHasher.digest() {
                        note(segment, footerOffset, .chainMismatch, "records do not match the footer's count and SHA-256 (a record was edited after sealing)")
                    }
                    if footer.previousFooterHash != previousFooterHash { note(segment, footerOffset, .chainMismatch, "footer does not link to the previous segment's footer") }
                    if footer.footerHash != Frame.Footer.hash(firstPosition: segment.firstPosition, recordCount: footer.recordCount, recordsHash: footer.recordsHash, previousFooterHash: footer.previousFooterHash) {
                        note(segment, footerOffset, .chainMismatch, "footer hash does not match its contents")
                    }
                    previousFooterHash = footer.footerHash
                } else {
                    note(segment, Int64(bytes.count), .chainMismatch, "sealed segment has no valid footer")
                }
                try bytes.withUnsafeBytes { raw in
                    hasher.addSealed(firstPosition: segment.firstPosition, bytes: raw)
                    let end = walk.footerOffset.map(Int.init) ?? raw.count
                    try Self.records(in: raw, upTo: end, segment: segment, record) { _, _, _ in }
                }
            } else {
                let covered = Int(cut.rawValue - segment.firstPosition)
                hasher.startCut(firstPosition: segment.firstPosition, covered: UInt64(covered))
                try bytes.withUnsafeBytes { raw in
                    let present = UnsafeRawBufferPointer(rebasing: raw.prefix(covered))
                    hasher.update(present)
                    if let header = Frame.parseSegmentHeader(present) {
                        if header.firstPosition != segment.firstPosition { note(segment, 0, .chainMismatch, "segment header names position \(header.firstPosition), the file name \(segment.firstPosition)") }
                        if header.previousFooterHash != previousFooterHash { note(segment, 0, .chainMismatch, "segment header does not carry the previous segment's footer hash") }
                    } else {
                        note(segment, 0, .crcMismatch, "segment header is damaged")
                    }
                    try Self.records(in: raw, upTo: covered, segment: segment, record) { offset, kind, detail in
                        note(segment, Int64(offset), kind, detail, atRecord: kind != .truncated)
                    }
                }
                // Sealed since the head was taken (the usual case for a head published at a
                // close): its footer judges the records before the cut too.
                let walk = SegmentWalk(file: segment.path, bytes: bytes)
                if let footer = walk.footer, let footerOffset = walk.footerOffset, !walk.footerFollowsDamage,
                    footer.recordCount != walk.recordCount || footer.recordsHash != walk.recordsHasher.digest()
                {
                    cutSegmentEdited = .init(
                        problem: LogProblem(file: segment.path, offset: footerOffset, kind: .chainMismatch,
                                            detail: "records do not match the footer's count and SHA-256 (a record was edited after sealing)"),
                        position: LogPosition(rawValue: segment.firstPosition + UInt64(footerOffset)), atRecord: false)
                }
            }
            expectedFirst = segment.firstPosition + UInt64(length)
        }
        if last == nil {
            let end = list.segments.last.map { $0.path } ?? directory
            findings.append(.init(
                problem: LogProblem(file: end, offset: 0, kind: .truncated, detail: "the log ends at position \(expectedFirst), before position \(cut)"),
                position: LogPosition(rawValue: expectedFirst), atRecord: false))
        }
        return LogPrefixAudit(digest: hasher.digest(), findings: findings, cutSegmentEdited: cutSegmentEdited)
    }

    /// Calls `record` for each valid frame from the header up to `end`, and `damage` for each
    /// place that is not one: a bad frame (the walk goes on at the next valid frame), a frame that
    /// runs past `end`, or a file that ends before it.
    private static func records(
        in raw: UnsafeRawBufferPointer, upTo end: Int, segment: SegmentList.Segment,
        _ record: (LogEntry) throws -> Void, damage: (Int, LogProblem.Kind, String) -> Void
    ) throws {
        let view = UnsafeRawBufferPointer(rebasing: raw.prefix(end))
        var offset = LogFormat.segmentHeaderSize
        while offset < end {
            guard offset < view.count else {
                damage(view.count, .truncated, "the segment ends at offset \(view.count), before position \(segment.firstPosition + UInt64(end))")
                return
            }
            switch Frame.parse(view, at: offset) {
            case .frame(let kind, let version, let payload, let size):
                if kind != LogFormat.footerKind {
                    try record(LogEntry(position: LogPosition(rawValue: segment.firstPosition + UInt64(offset)), kind: kind, version: version, payload: UnsafeRawBufferPointer(rebasing: view[payload])))
                }
                offset += size
                continue
            case .incomplete:
                if raw.count > end {
                    damage(offset, .badLength, "the frame here runs past position \(segment.firstPosition + UInt64(end)), which is not the end of a record")
                } else {
                    damage(offset, .truncated, "the segment ends inside this frame, before position \(segment.firstPosition + UInt64(end))")
                }
                return
            case .zero:
                guard SegmentWalk.nextValidFrame(view, after: offset) != nil else {
                    damage(offset, .truncated, "the records end here, before position \(segment.firstPosition + UInt64(end))")
                    return
                }
                damage(offset, .badLength, "zero bytes where a frame belongs")
            case .crcMismatch:
                damage(offset, .crcMismatch, "frame checksum does not match")
            case .badLength:
                damage(offset, .badLength, "not a valid frame (impossible length or kind)")
            }
            guard let next = SegmentWalk.nextValidFrame(view, after: offset) else { return }
            offset = next
        }
    }
}
