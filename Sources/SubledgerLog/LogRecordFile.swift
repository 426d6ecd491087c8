/// Reads single records by position with one `pread` each (two for a large record), keeping its
/// segments open: what a query that jumps from position to position through an index needs,
/// where `LogReader.record(at:)` would list the directory and read a whole chunk per record.
/// Every frame's CRC is checked. Not thread-safe: one per query.
public final class LogRecordFile {
    public let directory: String
    private var list: SegmentList
    private var descriptors: [Int32?]
    private var buffer: [UInt8]

    public init(directory: String) throws(LogError) {
        self.directory = directory
        do { list = try SegmentList(directory: directory) } catch { throw .io(error) }
        descriptors = Array(repeating: nil, count: list.segments.count)
        buffer = Array(repeating: 0, count: 4096)
    }

    deinit {
        for case let fd? in descriptors { SystemCalls.close(fd) }
    }

    /// The record that starts at `position`; `LogError.noRecord` when none starts there, and
    /// `.corrupted` when the frame there fails its CRC or length check (damage, or a position
    /// inside a record: only a caller that knows a record starts there can tell which).
    public func record(at position: LogPosition) throws(LogError) -> LogRecord {
        do {
            return try read(at: position)
        } catch .noRecord where list.index(containing: position.rawValue) == list.segments.count - 1 {
            // The log may have moved on to a segment this reader has not listed yet.
            try relist()
            return try read(at: position)
        }
    }

    /// The record at `position` that another log refers to (an event's evidence, or its
    /// header): none there is damage, a segment removed or cut short, not a position given wrong.
    public func referencedRecord(at position: LogPosition) throws(LogError) -> LogRecord {
        do {
            return try record(at: position)
        } catch .noRecord {
            if let gap = try list.gap() { throw .corrupted(gap) }
            throw .corrupted(LogProblem(
                file: directory, offset: 0, kind: .truncated,
                detail: "no record starts at position \(position), which the event log refers to: this log was cut short, or a segment put back from an older copy. After a power loss, the last batch's events (never acknowledged) refer to evidence that never reached the disk, and the next `subledger ingest` or `serve` cuts them; anything more: restore it from a backup"))
        }
    }

    private func read(at position: LogPosition) throws(LogError) -> LogRecord {
        guard let index = list.index(containing: position.rawValue) else { throw .noRecord(at: position) }
        let fd = try descriptor(index)
        let relative = position.rawValue - list.segments[index].firstPosition
        guard relative <= UInt64(LogFormat.maxSegmentOffset), relative >= UInt64(LogFormat.segmentHeaderSize) else { throw .noRecord(at: position) }
        let offset = Int64(relative)
        var read = try pread(fd, offset)
        if read >= LogFormat.frameHeaderSize {
            let needed = LogFormat.frameHeaderSize + Int(buffer.withUnsafeBytes { $0.loadLE(UInt32.self, at: 0) })
            if needed > buffer.count, needed <= LogFormat.frameHeaderSize + LogFormat.maxPayloadSize {
                buffer = Array(repeating: 0, count: needed)
                read = try pread(fd, offset)
            }
        }
        let parsed = buffer.withUnsafeBytes { raw -> Result<LogRecord, LogError> in
            switch Frame.parse(UnsafeRawBufferPointer(rebasing: raw[..<read]), at: 0) {
            case .frame(let kind, let version, let payload, _) where kind != LogFormat.footerKind:
                return .success(LogRecord(kind: kind, version: version, payload: Array(raw[payload])))
            case .crcMismatch:
                return .failure(.corrupted(LogProblem(file: list.segments[index].path, offset: offset, kind: .crcMismatch, detail: "frame checksum does not match")))
            case .badLength:
                return .failure(.corrupted(LogProblem(file: list.segments[index].path, offset: offset, kind: .badLength, detail: "impossible frame length or kind")))
            case .frame, .incomplete, .zero:
                return .failure(.noRecord(at: position))
            }
        }
        return try parsed.get()
    }

    private func pread(_ fd: Int32, _ offset: Int64) throws(LogError) -> Int {
        let result: Result<Int, SystemError> = buffer.withUnsafeMutableBytes { raw in
            do throws(SystemError) { return .success(try SystemCalls.pread(fd, raw.baseAddress!, raw.count, offset)) } catch { return .failure(error) }
        }
        do { return try result.get() } catch { throw .io(error) }
    }

    private func relist() throws(LogError) {
        let fresh: SegmentList
        do { fresh = try SegmentList(directory: directory) } catch { throw .io(error) }
        for case let fd? in descriptors { SystemCalls.close(fd) }
        list = fresh
        descriptors = Array(repeating: nil, count: list.segments.count)
    }

    private func descriptor(_ index: Int) throws(LogError) -> Int32 {
        if let fd = descriptors[index] { return fd }
        let (fd, _) = try list.segments[index].openForReading()
        descriptors[index] = fd
        return fd
    }
}
