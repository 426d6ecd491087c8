#if canImport(Glibc)
import Glibc
#endif

/// A full walk over one segment file held in memory, classifying every problem. Used where
/// thoroughness matters more than speed: writer recovery of the last segment, and `verify`.
package struct SegmentWalk {
    package var header: Frame.SegmentHeader?
    /// Records (frames of kinds 1...254) in the valid prefix.
    package var recordCount: UInt64 = 0
    /// Valid records anywhere in the segment, also after damage.
    package var recordsFound: UInt64 = 0
    /// SHA-256 of the valid prefix's frames (excluding the footer).
    let recordsHasher = SHA256Hasher()
    /// End of the valid prefix: the file offset just after the last good frame.
    package var validEnd: Int64 = 0
    /// Where the last record of the valid prefix starts.
    package var lastRecordOffset: Int64?
    package var footer: Frame.Footer?
    package var footerOffset: Int64?
    /// The footer lies past damage: intact, it still links the chain, but the records it
    /// commits to cannot all be read, so they are not compared with it (the damage is named).
    package var footerFollowsDamage = false
    /// Problems that have valid frames after them (never repaired silently).
    package var problems: [LogProblem] = []
    /// The damaged tail with nothing valid after it: (offset, bytes).
    package var tornTail: (offset: Int64, bytes: Int64)?
    /// The torn tail is a frame damaged where it lies, not cut off: a whole frame that fails its
    /// check, or a footer's worth of bytes of the footer's kind (its length field damaged).
    package var tornTailIsDamagedFrame = false
    /// Preallocated zero bytes at the end of the file.
    package var zeroTail: Int64 = 0

    /// Bytes in the file walked, preallocated zeros included.
    package var fileSize: Int64 = 0

    /// Where the next segment starts, relative to this one: the end of its footer when one reads
    /// with no damage before it (bytes added after it are this segment's problem, not a gap
    /// before the next), else the file's end.
    package var sealedLength: Int64 {
        guard footer != nil, let footerOffset, !footerFollowsDamage else { return fileSize }
        return footerOffset + Int64(LogFormat.footerFrameSize)
    }

    package init(file: String, bytes: [UInt8]) {
        bytes.withUnsafeBytes { raw in walk(file: file, raw) }
    }

    /// Walks the file through a read-only mapping: no copy, and no zero-filled buffer, whose page
    /// faults cost more than the walk itself for a full segment. Only for the holder of the
    /// writer lock: a file cut short by another process while mapped would fault.
    package init(mappingFile path: String) throws(SystemError) {
        let fd = try SystemCalls.open(path, O_RDONLY)
        defer { SystemCalls.close(fd) }
        let size = Int(try SystemCalls.fileSize(fd))
        guard size > 0 else {
            walk(file: path, UnsafeRawBufferPointer(start: nil, count: 0))
            return
        }
        let mapping = try SystemCalls.mapForReading(fd, size)
        defer { SystemCalls.unmap(mapping) }
        walk(file: path, mapping)
    }

    private mutating func walk(file: String, _ raw: UnsafeRawBufferPointer) {
        fileSize = Int64(raw.count)
        guard let header = Frame.parseSegmentHeader(raw) else {
            if raw.count < LogFormat.segmentHeaderSize || raw.allSatisfy({ $0 == 0 }) {
                tornTail = (0, Int64(raw.count))
            } else {
                problems.append(LogProblem(file: file, offset: 0, kind: .crcMismatch, detail: "segment header is damaged"))
            }
            return
        }
        self.header = header
        var offset = LogFormat.segmentHeaderSize
        var inValidPrefix = true
        validEnd = Int64(offset)
        while offset < raw.count {
            switch Frame.parse(raw, at: offset) {
            case .frame(let kind, _, _, let size):
                if kind != LogFormat.footerKind { recordsFound += 1 }
                if inValidPrefix {
                    if footer != nil {
                        inValidPrefix = false
                        problems.append(LogProblem(file: file, offset: Int64(offset), kind: .badLength, detail: "data after the segment footer"))
                    } else if kind == LogFormat.footerKind {
                        footer = Frame.Footer(payload: UnsafeRawBufferPointer(rebasing: raw[(offset + LogFormat.frameHeaderSize)..<(offset + size)]))
                        footerOffset = Int64(offset)
                        if footer == nil {
                            inValidPrefix = false
                            problems.append(LogProblem(file: file, offset: Int64(offset), kind: .badLength, detail: "footer frame has the wrong size"))
                        }
                    } else {
                        recordsHasher.update(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + size)]))
                        recordCount += 1
                        lastRecordOffset = Int64(offset)
                    }
                    if inValidPrefix { validEnd = Int64(offset + size) }
                } else if kind == LogFormat.footerKind, footer == nil,
                          let found = Frame.Footer(payload: UnsafeRawBufferPointer(rebasing: raw[(offset + LogFormat.frameHeaderSize)..<(offset + size)])) {
                    footer = found
                    footerOffset = Int64(offset)
                    footerFollowsDamage = true
                }
                offset += size
            case .incomplete, .badLength, .crcMismatch, .zero:
                let parsed = Frame.parse(raw, at: offset)
                guard let next = Self.nextValidFrame(raw, after: offset) else {
                    // Preallocated zeros are not damage; anything else up to them is a torn append.
                    let lastNonZero = raw.lastIndex { $0 != 0 } ?? (offset - 1)
                    if lastNonZero >= offset {
                        tornTail = (Int64(offset), Int64(lastNonZero + 1 - offset))
                        let footerSized = lastNonZero + 1 - offset <= LogFormat.footerFrameSize && raw.count - offset >= LogFormat.footerFrameSize
                            && raw[offset + 8] == LogFormat.footerKind
                        if case .crcMismatch = parsed { tornTailIsDamagedFrame = true } else { tornTailIsDamagedFrame = footerSized }
                    }
                    zeroTail = Int64(raw.count - max(offset, lastNonZero + 1))
                    return
                }
                inValidPrefix = false
                let kind: LogProblem.Kind
                let detail: String
                switch parsed {
                case .crcMismatch:
                    kind = .crcMismatch
                    detail = "frame checksum does not match; valid records follow at offset \(next)"
                default:
                    kind = .badLength
                    detail = "frame length is impossible; valid records follow at offset \(next)"
                }
                problems.append(LogProblem(file: file, offset: Int64(offset), kind: kind, detail: detail))
                offset = next
            }
        }
    }

    /// What is wrong with this last segment of a log closed cleanly at `closed` (see
    /// `ClosedMarker`): a tail that would be a torn append is damage, and so is an end elsewhere.
    func problem(closedCleanlyAt closed: LogPosition, segment: SegmentList.Segment) -> LogProblem? {
        let end = segment.firstPosition + UInt64(validEnd)
        if let torn = tornTail {
            // Told apart by where the tail lies against the end the close recorded.
            let (start, tornEnd) = (segment.firstPosition + UInt64(torn.offset), segment.firstPosition + UInt64(torn.offset + torn.bytes))
            if start >= closed.rawValue {
                return LogProblem(
                    file: segment.path, offset: torn.offset, kind: .badLength,
                    detail: "\(torn.bytes) bytes that are no record follow the end the log was closed cleanly at (position \(closed)): written after it closed, by something other than this ledger; restore the segment from a backup")
            }
            let what = tornEnd < closed.rawValue ? "the log ends inside its last record" : "the last record fails its check"
            return LogProblem(
                file: segment.path, offset: torn.offset, kind: .crcMismatch,
                detail: "\(what), yet the log was closed cleanly at position \(closed): damaged after it was written, not an append a crash cut short; restore the segment from a backup")
        }
        // Damage before the end is named already, and the valid prefix stops at it.
        guard header != nil, end == closed.rawValue || !problems.isEmpty else {
            return ClosedMarker.mismatch(file: segment.path, offset: validEnd, end: LogPosition(rawValue: end), closed: closed)
        }
        return nil
    }

    /// What the torn tail of a sealed segment is, which nothing appends to: bytes added after its
    /// intact footer; its last frame damaged at rest; or records cut off.
    func sealedTailProblem(file: String) -> LogProblem? {
        guard let torn = tornTail else { return nil }
        if footer != nil, let footerOffset, !footerFollowsDamage, torn.offset > footerOffset {
            return LogProblem(file: file, offset: torn.offset, kind: .badLength, detail: "data after the segment footer")
        }
        if tornTailIsDamagedFrame {
            return LogProblem(file: file, offset: torn.offset, kind: .crcMismatch, detail: "the sealed segment's last frame fails its check (damaged after it was written); restore the segment from a backup")
        }
        return LogProblem(file: file, offset: torn.offset, kind: .truncated, detail: "the sealed segment is cut short inside a record; restore it from a backup")
    }

    /// The first offset after `offset` where a complete, valid frame starts. Two bytes decide
    /// most offsets (a frame's kind is not 0, and its length, at most `maxPayloadSize` = 2^24,
    /// has a top byte of 0 or 1), then the length must fit; a false match needs a 32-bit CRC
    /// collision.
    static func nextValidFrame(_ raw: UnsafeRawBufferPointer, after offset: Int) -> Int? {
        var candidate = offset + 1
        while candidate + LogFormat.frameHeaderSize <= raw.count {
            if raw[candidate + 8] != 0, raw[candidate + 3] <= 1,
               Int(raw.loadLE(UInt32.self, at: candidate)) <= raw.count - candidate - LogFormat.frameHeaderSize,
               case .frame = Frame.parse(raw, at: candidate) {
                return candidate
            }
            candidate += 1
        }
        return nil
    }
}

/// Reads a whole file into memory.
func readWholeFile(_ path: String) throws(SystemError) -> [UInt8] {
    let fd = try SystemCalls.open(path, O_RDONLY)
    defer { SystemCalls.close(fd) }
    let size = Int(try SystemCalls.fileSize(fd))
    var bytes = [UInt8](repeating: 0, count: size)
    let read = try SystemCalls.pread(fd, into: &bytes, 0)
    if read < size { bytes.removeLast(size - read) }
    return bytes
}
