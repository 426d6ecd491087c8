#if canImport(Glibc)
import Glibc
#endif

/// A record seen during a scan. `payload` is valid only inside the scan's closure.
public struct LogEntry {
    public var position: LogPosition
    public var kind: UInt8
    public var version: UInt8
    public var payload: UnsafeRawBufferPointer
}

/// Counts that `stats` reports.
public struct LogSummary: Sendable, Equatable {
    public var segments: Int
    public var records: UInt64
    public var bytes: Int64
    public var lastPosition: LogPosition?
    /// Where the next record would start.
    public var endPosition: LogPosition
}

/// Reads a log directory; needs no lock, so it can run beside the writer. Scans read large
/// chunks into one reused buffer and check every frame's CRC in hardware.
public struct LogReader: Sendable {
    public let directory: String
    static let chunkSize = 1 << 20
    /// Read beyond a bounded scan's end: enough for the last record's frame in most cases (a
    /// larger one grows the buffer).
    static let slack = 64 << 10

    /// How many times damage at the tail is read again before it is believed (`tailRereads`);
    /// tests whose writer a loaded machine may start late raise it.
    var rereadsAtTail: Int

    /// `writerMayBeBeside: false` when nothing can be appending (a copy, a directory the caller
    /// alone uses): damage at the tail is then reported at once, not after ~30 ms of re-reads.
    public init(directory: String, writerMayBeBeside: Bool = true) {
        self.directory = directory
        self.rereadsAtTail = writerMayBeBeside ? Self.tailRereads : 0
    }

    /// Calls `body` for every record from `start` up to (not including) `end`, in order;
    /// `body` returns false to stop. With no `end`, a frame cut short at the end of the last
    /// segment (an append in progress) ends the scan; damage anywhere else throws `.corrupted`.
    public func scan(from start: LogPosition = .start, to end: LogPosition? = nil, _ body: (LogEntry) throws -> Bool) throws {
        let list: SegmentList
        do { list = try SegmentList(directory: directory) } catch { throw LogError.io(error) }
        guard !list.segments.isEmpty else { return }
        guard var index = list.index(containing: start.rawValue) ?? (start == .start ? 0 : nil) else {
            throw LogError.noRecord(at: start)
        }
        // A bounded scan reads about what it spans: the server's fold catches up a few records
        // at a time, and a whole chunk per call meant a fresh megabyte, mostly the segment's
        // preallocated zeros, for every group the webhook stored.
        let span = end.map { Int(min($0.rawValue &- min($0.rawValue, start.rawValue), UInt64(Self.chunkSize))) } ?? Self.chunkSize
        var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: min(Self.chunkSize, span + Self.slack), alignment: 16)
        defer { buffer.deallocate() }
        let relative = start.rawValue - min(start.rawValue, list.segments[index].firstPosition)
        guard relative <= UInt64(LogFormat.maxSegmentOffset) else { return }
        var offsetInSegment = max(Int64(LogFormat.segmentHeaderSize), Int64(relative))
        while index < list.segments.count {
            let segment = list.segments[index]
            let isLast = index == list.segments.count - 1
            let keepGoing = try scanSegment(segment, from: offsetInSegment, isLast: isLast, end: end?.rawValue, buffer: &buffer, body)
            if !keepGoing { return }
            index += 1
            offsetInSegment = Int64(LogFormat.segmentHeaderSize)
        }
    }

    /// Returns false when the caller asked to stop or `end` was reached.
    private func scanSegment(
        _ segment: SegmentList.Segment, from startOffset: Int64, isLast: Bool, end: UInt64?,
        buffer: inout UnsafeMutableRawBufferPointer, _ body: (LogEntry) throws -> Bool
    ) throws -> Bool {
        let (fd, size) = try segment.openForReading()
        defer { SystemCalls.close(fd) }
        var fileOffset = startOffset  // file offset of buffer[0]
        var filled = 0
        var consumed = 0
        var rereads = 0
        // Not a local function: one capturing these counters would box them, and this loop is
        // every log read's.
        let mayReread = isLast && end == nil
        reading: while true {
            // Refill: move the unparsed tail to the front, then read after it.
            if consumed > 0 {
                if filled > consumed { buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + consumed, byteCount: filled - consumed) }
                fileOffset += Int64(consumed)
                filled -= consumed
                consumed = 0
            }
            let wanted = buffer.count - filled
            let read: Int
            do { read = try SystemCalls.pread(fd, buffer.baseAddress! + filled, wanted, fileOffset + Int64(filled)) } catch { throw LogError.io(error) }
            filled += read
            let atEOF = fileOffset + Int64(filled) >= size || read < wanted
            let view = UnsafeRawBufferPointer(rebasing: buffer[0..<filled])
            frames: while consumed < filled {
                let frameOffset = fileOffset + Int64(consumed)
                let position = segment.firstPosition + UInt64(frameOffset)
                if let end, position >= end { return false }
                switch Frame.parse(view, at: consumed) {
                case .frame(let kind, let version, let payload, let frameSize):
                    rereads = 0  // each frame a writer may be copying in has its own budget
                    if kind == LogFormat.footerKind { return true }
                    let entry = LogEntry(position: LogPosition(rawValue: position), kind: kind, version: version, payload: UnsafeRawBufferPointer(rebasing: view[payload]))
                    if try !body(entry) { return false }
                    consumed += frameSize
                case .incomplete(let needed):
                    if !atEOF {
                        if needed > buffer.count {
                            let bigger = UnsafeMutableRawBufferPointer.allocate(byteCount: needed, alignment: 16)
                            bigger.baseAddress!.copyMemory(from: buffer.baseAddress! + consumed, byteCount: filled - consumed)
                            buffer.deallocate()
                            buffer = bigger
                            fileOffset += Int64(consumed)
                            filled -= consumed
                            consumed = 0
                        }
                        // Refill; `view` is stale once the buffer grew.
                        break frames
                    }
                    if isLast && end == nil { return false }
                    throw LogError.corrupted(LogProblem(file: segment.path, offset: frameOffset, kind: .tornTail, detail: "the segment ends inside a frame"))
                case .zero:
                    if isLast { return false }
                    throw LogError.corrupted(LogProblem(file: segment.path, offset: frameOffset, kind: .badLength, detail: "zero bytes where a frame belongs"))
                case .badLength:
                    if mayReread, pausingToReread(&rereads) {
                        filled = consumed
                        continue reading
                    }
                    throw LogError.corrupted(LogProblem(file: segment.path, offset: frameOffset, kind: .badLength, detail: "impossible frame length or kind"))
                case .crcMismatch:
                    if mayReread, pausingToReread(&rereads) {
                        filled = consumed
                        continue reading
                    }
                    throw LogError.corrupted(LogProblem(file: segment.path, offset: frameOffset, kind: .crcMismatch, detail: "frame checksum does not match"))
                }
            }
            if atEOF && consumed >= filled { return true }
        }
    }

    /// Where each segment starts, in order: a scan of part of the log may start or end at any.
    public func segmentStarts() throws -> [LogPosition] {
        try segmentList().segments.map { LogPosition(rawValue: $0.firstPosition) }
    }

    /// The segment file holding `position`, and the offset in it.
    public func place(of position: LogPosition) throws -> (file: String, offset: Int64) {
        let list = try segmentList()
        guard let index = list.index(containing: position.rawValue) else { return (directory, Int64(position.rawValue)) }
        return (list.segments[index].path, Int64(position.rawValue - list.segments[index].firstPosition))
    }

    /// The record at `position` (copied out).
    public func record(at position: LogPosition) throws -> LogRecord {
        var found: LogRecord?
        try scan(from: position) { entry in
            if entry.position == position {
                found = LogRecord(kind: entry.kind, version: entry.version, payload: Array(entry.payload))
            }
            return false
        }
        guard let found else { throw LogError.noRecord(at: position) }
        return found
    }

    /// Segment, record and byte counts: from the sealed segments' footers plus a scan of the last.
    public func summary() throws -> LogSummary {
        let (counted, closed) = try ClosedMarker.end(in: directory) { try count() }
        // Closed cleanly, the log ends where it was closed: a shorter one lost records at rest
        // (its last frame cut short reads as the end of the data), a longer one was appended to
        // by something that left the marker.
        if let closed, counted.summary.endPosition != closed || counted.lastSegment == nil {
            throw LogError.corrupted(ClosedMarker.mismatch(
                file: counted.lastSegment?.path ?? directory, offset: Int64(counted.summary.endPosition.rawValue - (counted.lastSegment?.firstPosition ?? 0)),
                end: counted.summary.endPosition, closed: closed))
        }
        return counted.summary
    }

    /// A writer beside this reader may be copying the active segment's last frame in (a read is
    /// not atomic with a write of several pages): what reads as damage there is read again, up
    /// to this many times over some milliseconds, before it is believed. `/metrics`, `stats`,
    /// `head`, `verify` and `export` beside a server took such a frame for damage. Damage at
    /// rest stays.
    static let tailRereads = 5

    /// Counts a re-read and pauses before it (2 ms longer each time); false once
    /// `rereadsAtTail` are spent.
    func pausingToReread(_ rereads: inout Int) -> Bool {
        guard rereads < rereadsAtTail else { return false }
        rereads += 1
        usleep(UInt32(2_000 * rereads))
        return true
    }

    private func count() throws -> (summary: LogSummary, lastSegment: SegmentList.Segment?) {
        let list: SegmentList
        do { list = try SegmentList(directory: directory) } catch { throw LogError.io(error) }
        var summary = LogSummary(segments: list.segments.count, records: 0, bytes: 0, lastPosition: nil, endPosition: .start)
        for (i, segment) in list.segments.enumerated() {
            let (fd, size) = try segment.openForReading()
            defer { SystemCalls.close(fd) }
            if i < list.segments.count - 1 {
                summary.bytes += size
                guard let footer = try segment.readFooter(fd: fd, size: size) else {
                    throw LogError.corrupted(LogProblem(file: segment.path, offset: size - Int64(LogFormat.footerFrameSize), kind: .crcMismatch, detail: "sealed segment's footer is damaged or missing"))
                }
                summary.records += footer.recordCount
            }
        }
        if let last = list.segments.last {
            // The active segment may be preallocated past its data: its size is where data ends.
            var end = last.firstPosition + UInt64(LogFormat.segmentHeaderSize)
            try scan(from: LogPosition(rawValue: last.firstPosition)) { entry in
                summary.records += 1
                summary.lastPosition = entry.position
                end = entry.position.rawValue + UInt64(LogFormat.frameHeaderSize + entry.payload.count)
                return true
            }
            summary.bytes += Int64(end - last.firstPosition)
            summary.endPosition = LogPosition(rawValue: end)
            if summary.lastPosition == nil, list.segments.count > 1 {
                // The last segment is empty: the last record is in an earlier segment.
                try scan(from: LogPosition(rawValue: list.segments[list.segments.count - 2].firstPosition)) { entry in
                    summary.lastPosition = entry.position
                    return true
                }
            }
        }
        return (summary, list.segments.last)
    }
}
