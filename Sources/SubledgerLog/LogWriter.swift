#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SubledgerCore

/// One record to append: a kind (1...254, chosen by the caller), a version and the payload.
public struct LogRecord: Sendable {
    public var kind: UInt8
    public var version: UInt8
    public var payload: [UInt8]

    public init(kind: UInt8, version: UInt8 = 1, payload: [UInt8]) {
        self.kind = kind
        self.version = version
        self.payload = payload
    }
}

public struct LogOptions: Sendable {
    /// A segment is sealed and a new one started when an append would take it past this size.
    public var segmentSize: Int64 = 64 << 20
    /// The active segment grows by this much at a time (zeros written ahead of appends).
    public var preallocationStep: Int64 = 4 << 20

    public init(segmentSize: Int64 = 64 << 20, preallocationStep: Int64 = 4 << 20) {
        self.segmentSize = segmentSize
        self.preallocationStep = preallocationStep
    }
}

/// The end of a log as opening left it (a torn tail cut), for a caller's own recovery.
public struct LogTail: Sendable, Equatable {
    /// Where the active segment's records start.
    public var segmentStart: LogPosition
    /// The last record of the active segment, if it has any.
    public var lastRecord: LogPosition? = nil
    /// Where the next record goes.
    public var end: LogPosition
}

/// What opening the log for writing repaired.
public struct RecoveryReport: Sendable, Equatable {
    /// Bytes of a torn tail (an append interrupted by a crash) cut from the last segment.
    public var truncatedBytes: Int64 = 0
    /// The file that was truncated, if any.
    public var file: String?
}

/// The only writer of a log directory. Appends are durable (`pwrite` + `fdatasync`) before they
/// complete; concurrent appends are grouped into one write and one sync (group commit). A caller
/// that makes two logs durable together may `write` to each and then `sync` both at once.
///
/// File state is touched only by the current flusher: the `flushing` flag, set and cleared
/// under the `pending` mutex, admits one at a time (and the mutex orders their memory), which
/// is what makes the `@unchecked Sendable` sound. A blocking caller that finds no flush in
/// progress flushes on its own thread (no thread hop for a lone writer); async callers hand
/// the flush to `ioQueue` so they never block the cooperative pool.
public final class LogWriter: @unchecked Sendable {
    public let directory: String
    public let options: LogOptions
    public let recovery: RecoveryReport
    /// The directory opened: segments and markers are written by path, so a path that names
    /// another directory since (moved, or replaced by a restore while the log was open) must
    /// not get them: appends then fail, and the close writes no marker.
    private let identity: DirectoryIdentity

    /// Whether `directory` still names the directory opened (`identity`).
    public var isInPlace: Bool { identity.isNamed(by: directory) }
    /// Whether the log had been closed cleanly when opened (its `ClosedMarker` in place): nothing
    /// a crash cut short can follow its last record.
    public let openedClosedCleanly: Bool
    /// The end of the log as opened (set once, by `init`).
    public private(set) var openedTail = LogTail(segmentStart: .start, end: .start)

    private let lock: WriterLock
    private let ioQueue = DispatchQueue(label: "subledger.log.writer")

    // Active segment (I/O queue only).
    private var fd: Int32
    private var segmentFirstPosition: UInt64
    /// End of the last durable frame in the active segment.
    private var fileSize: Int64
    /// The active segment's size on disk, preallocated beyond `fileSize`.
    private var allocatedSize: Int64
    private var segmentRecordCount: UInt64
    private var segmentHasher: SHA256Hasher
    private var previousFooterHash: [UInt8]
    private var failure: String?
    /// Frames were written after the last sync (by `write`).
    private var unsynced = false
    /// The last clean close's `ClosedMarker` is still in place: removed before the first write,
    /// written again at a clean close (a session that appends nothing leaves it as it was).
    private var closedMarkerInPlace: Bool

    private struct Request {
        var records: [LogRecord]
        var completion: @Sendable (Result<[LogPosition], LogError>) -> Void
        /// Closes the file after everything queued before it.
        var closes = false
        /// Whether the batch holding it is synced before it completes.
        var syncs = true
    }

    private struct Queue {
        var requests: [Request] = []
        var flushing = false
        var closed = false
    }

    private let pending = Lock(Queue())


    /// Opens (creating if needed) the log in `directory` for writing: takes the writer lock,
    /// checks the sealed segments' headers and footers, walks the last segment and truncates a
    /// torn tail. Refuses with `.corrupted` when damage is followed by valid records, when a
    /// segment is missing, and when a log closed cleanly (`ClosedMarker`) does not end where it was
    /// closed or its last record fails its check.
    public init(directory: String, options: LogOptions = LogOptions()) throws(LogError) {
        self.directory = directory
        self.options = options
        do { try SystemCalls.makeDirectories(directory) } catch { throw .io(error) }
        lock = try WriterLock(directory: directory)
        guard let identity = DirectoryIdentity(directory) else { throw .io(SystemError(call: "stat \(directory)", errno: errno)) }
        self.identity = identity

        var list: SegmentList
        do { list = try SegmentList(directory: directory) } catch { throw .io(error) }

        if let gap = try list.gap() { throw .corrupted(gap) }
        var previousHash = [UInt8](repeating: 0, count: 32)
        var nextFirst: UInt64 = 0
        for segment in list.segments.dropLast() {
            let sealed = try Self.checkSealedSegment(segment, previousFooterHash: previousHash)
            previousHash = sealed.footerHash
            nextFirst = segment.firstPosition + UInt64(sealed.size)
        }

        var report = RecoveryReport()
        var active: (fd: Int32, first: UInt64, size: Int64, count: UInt64, hasher: SHA256Hasher, last: Int64?)?
        let closedEnd = ClosedMarker.end(in: directory)
        if let closedEnd, list.segments.isEmpty {
            throw .corrupted(LogProblem(file: directory, offset: 0, kind: .truncated, detail: "the log has no segment, yet it was closed cleanly at position \(closedEnd): its files were removed"))
        }
        if let last = list.segments.last {
            let walk: SegmentWalk
            do { walk = try SegmentWalk(mappingFile: last.path) } catch { throw .io(error) }
            if let problem = walk.problems.first { throw .corrupted(problem) }
            if let closedEnd, let problem = walk.problem(closedCleanlyAt: closedEnd, segment: last) { throw .corrupted(problem) }
            if walk.header == nil {
                // A crash while a new segment was being created: nothing was ever appended to it.
                do {
                    try SystemCalls.unlink(last.path)
                    try SystemCalls.syncDirectory(directory)
                } catch { throw .io(error) }
                report = RecoveryReport(truncatedBytes: walk.fileSize, file: last.path)
            } else {
                if walk.header!.previousFooterHash != previousHash || walk.header!.firstPosition != last.firstPosition {
                    throw .corrupted(LogProblem(file: last.path, offset: 0, kind: .chainMismatch, detail: "segment header does not continue the previous segment"))
                }
                let fd: Int32
                do { fd = try SystemCalls.open(last.path, O_RDWR) } catch { throw .io(error) }
                do {
                    if walk.validEnd < walk.fileSize {
                        try SystemCalls.ftruncate(fd, walk.validEnd)
                        try SystemCalls.fdatasync(fd)
                    }
                } catch {
                    SystemCalls.close(fd)
                    throw .io(error)
                }
                if let torn = walk.tornTail { report = RecoveryReport(truncatedBytes: torn.bytes, file: last.path) }
                if let footer = walk.footer {
                    SystemCalls.close(fd)
                    previousHash = footer.footerHash
                    nextFirst = last.firstPosition + UInt64(walk.validEnd)
                } else {
                    active = (fd, last.firstPosition, walk.validEnd, walk.recordCount, walk.recordsHasher, walk.lastRecordOffset)
                }
            }
        }
        recovery = report
        previousFooterHash = previousHash
        closedMarkerInPlace = closedEnd != nil
        openedClosedCleanly = closedEnd != nil
        if let active {
            fd = active.fd
            segmentFirstPosition = active.first
            fileSize = active.size
            allocatedSize = active.size
            segmentRecordCount = active.count
            segmentHasher = active.hasher
        } else {
            fd = -1
            segmentFirstPosition = nextFirst
            fileSize = 0
            allocatedSize = 0
            segmentRecordCount = 0
            segmentHasher = SHA256Hasher()
            do {
                // A new segment moves the end the marker names.
                try removeClosedMarker()
                try startSegment(at: nextFirst)
            } catch { throw LogError.from(error) }
        }
        openedTail = LogTail(
            segmentStart: LogPosition(rawValue: segmentFirstPosition + UInt64(LogFormat.segmentHeaderSize)),
            lastRecord: active?.last.map { LogPosition(rawValue: active!.first + UInt64($0)) },
            end: LogPosition(rawValue: segmentFirstPosition + UInt64(fileSize)))
    }

    deinit {
        if fd >= 0 { SystemCalls.close(fd) }
    }

    /// Where the log in `directory` will end once opened for writing (a torn tail cut, by the
    /// rules `init` cuts by), read without writing anything; nil when it has no segment or does
    /// not read, which opening it reports. For a caller that must refuse before anything is cut.
    public static func endOnOpening(directory: String) -> LogPosition? {
        guard let list = try? SegmentList(directory: directory), let last = list.segments.last,
              let walk = try? SegmentWalk(mappingFile: last.path), walk.problems.isEmpty
        else { return nil }
        // A segment created without a header is removed: the log ends where it would have begun.
        return LogPosition(rawValue: last.firstPosition + UInt64(walk.header == nil ? 0 : walk.validEnd))
    }

    /// Waits for in-flight appends, then closes the active segment. Later appends fail.
    public func close() {
        let done = DispatchSemaphore(value: 0)
        submit(Request(records: [], completion: { _ in done.signal() }, closes: true), inline: true)
        done.wait()
    }

    /// Appends `records` durably and returns their positions, in order. Blocks the calling
    /// thread; concurrent callers share writes and syncs. The bulk-import API.
    public func append(_ records: [LogRecord]) throws(LogError) -> [LogPosition] {
        try wait(for: records, syncs: true)
    }

    /// Appends `records` without waiting for them to be durable and returns their positions:
    /// readers may see them at once, a system crash may lose them until `sync()` returns.
    public func write(_ records: [LogRecord]) throws(LogError) -> [LogPosition] {
        try wait(for: records, syncs: false)
    }

    /// Makes every record written so far durable. When a sync fails after `write`, the log
    /// refuses further appends: what reached the disk is known only once it is opened again.
    public func sync() throws(LogError) {
        _ = try wait(for: [], syncs: true)
    }

    private func wait(for records: [LogRecord], syncs: Bool) throws(LogError) -> [LogPosition] {
        try waitForCompletion { enqueue(records, inline: true, syncs: syncs, completion: $0) }.get()
    }

    /// Cuts the records from `position` on, which must be a record of the active segment: for a
    /// caller's recovery, before anything appends or reads.
    public func truncate(from position: LogPosition) throws(LogError) {
        let offset = Int64(position.rawValue) - Int64(segmentFirstPosition)
        guard fd >= 0, offset >= Int64(LogFormat.segmentHeaderSize), offset <= fileSize else {
            throw .noRecord(at: position)
        }
        let path = directory + "/" + LogFormat.segmentName(firstPosition: segmentFirstPosition)
        let walk: SegmentWalk
        do {
            // The end the marker names moves back.
            try removeClosedMarker()
            try SystemCalls.ftruncate(fd, offset)
            try SystemCalls.fdatasync(fd)
            walk = try SegmentWalk(mappingFile: path)
        } catch { throw .io(error) }
        if let problem = walk.problems.first { throw .corrupted(problem) }
        guard walk.validEnd == offset else { throw .noRecord(at: position) }
        fileSize = offset
        allocatedSize = offset
        segmentRecordCount = walk.recordCount
        segmentHasher = walk.recordsHasher
    }

    /// Appends `records` durably; resumes after the group they were written with is synced.
    public func append(_ records: [LogRecord]) async throws(LogError) -> [LogPosition] {
        let outcome: Result<[LogPosition], LogError> = await withCheckedContinuation { continuation in
            enqueue(records) { continuation.resume(returning: $0) }
        }
        return try outcome.get()
    }

    /// Appends one record durably.
    public func append(_ record: LogRecord) async throws(LogError) -> LogPosition {
        try await append([record])[0]
    }

    /// Queues `records` for the next group commit; `completion` runs after the group is durable
    /// (or failed), in append order, on the flushing thread — keep it short. With `inline`, a
    /// caller that finds no flush in progress flushes on its own thread before returning.
    public func enqueue(_ records: [LogRecord], inline: Bool = false, completion: @escaping @Sendable (Result<[LogPosition], LogError>) -> Void) {
        enqueue(records, inline: inline, syncs: true, completion: completion)
    }

    private func enqueue(_ records: [LogRecord], inline: Bool, syncs: Bool, completion: @escaping @Sendable (Result<[LogPosition], LogError>) -> Void) {
        for record in records where record.kind == 0 || record.kind == LogFormat.footerKind || record.payload.count > LogFormat.maxPayloadSize {
            completion(.failure(.invalidRecord(record.kind == 0 || record.kind == LogFormat.footerKind
                ? "kind \(record.kind) is reserved" : "payload of \(record.payload.count) bytes is over the \(LogFormat.maxPayloadSize)-byte limit")))
            return
        }
        submit(Request(records: records, completion: completion, syncs: syncs), inline: inline)
    }

    private func submit(_ request: Request, inline: Bool) {
        let startFlusher = pending.withLock { queue in
            queue.requests.append(request)
            if queue.flushing { return false }
            queue.flushing = true
            return true
        }
        guard startFlusher else { return }
        if inline { flushLoop() } else { ioQueue.async { self.flushLoop() } }
    }

    private func flushLoop() {
        while true {
            let batch = pending.withLock { queue -> [Request]? in
                if queue.requests.isEmpty {
                    queue.flushing = false
                    return nil
                }
                defer { queue.requests.removeAll(keepingCapacity: true) }
                return queue.requests
            }
            guard let batch else { return }
            // A close request splits the batch: what came before it is written, the rest fails.
            if let closeIndex = batch.firstIndex(where: \.closes) {
                write(Array(batch[..<closeIndex]))
                closeFile()
                for request in batch[closeIndex...] {
                    request.closes ? request.completion(.success([])) : request.completion(.failure(.unavailable("the log is closed")))
                }
            } else {
                write(batch)
            }
        }
    }

    private func closeFile() {
        pending.withLock { $0.closed = true }
        if fd >= 0 {
            // A cleanly closed log carries no preallocated zeros.
            if allocatedSize > fileSize, (try? SystemCalls.ftruncate(fd, fileSize)) != nil { allocatedSize = fileSize }
            // The marker vouches for the end only once the data and the size are durable; after
            // a failure the end is not known for sure, and the next open recovers as after a crash.
            if !closedMarkerInPlace, failure == nil, isInPlace, (try? SystemCalls.fsync(fd)) != nil {
                try? ClosedMarker.write(LogPosition(rawValue: segmentFirstPosition + UInt64(fileSize)), in: directory)
            }
            SystemCalls.close(fd)
            fd = -1
        }
        lock.release()
    }

    /// Removes the clean-close marker before the log's end moves, once.
    private func removeClosedMarker() throws(SystemError) {
        guard closedMarkerInPlace else { return }
        try ClosedMarker.remove(in: directory)
        closedMarkerInPlace = false
    }

    /// One group commit: all frames of `batch` in one `pwrite`, one `fdatasync`.
    private func write(_ batch: [Request]) {
        if batch.isEmpty { return }
        if pending.withLock({ $0.closed }) { return fail(batch, .unavailable("the log is closed")) }
        if let failure { return fail(batch, .unavailable(failure)) }
        // A stat a group: nothing next to the fsync it comes with.
        guard isInPlace else {
            failure = "the log directory \(directory) was moved or replaced while the log was open (a restore done with the ledger running?): "
                + "nothing more is written, to it or to what is there now; stop the process and start it again, which opens what is at \(directory)"
            return fail(batch, .unavailable(failure!))
        }
        do { try removeClosedMarker() } catch { return fail(batch, LogError.from(error)) }
        var bytes = 0
        for request in batch { for record in request.records { bytes += LogFormat.frameHeaderSize + record.payload.count } }
        do {
            if fd < 0 {
                // A roll sealed the last segment but could not create the next (disk full).
                try startSegment(at: segmentFirstPosition + UInt64(fileSize))
            }
            if segmentRecordCount > 0 && fileSize + Int64(bytes) > options.segmentSize {
                try sealAndRoll()
            }
        } catch {
            return fail(batch, LogError.from(error))
        }

        var buffer: [UInt8] = []
        buffer.reserveCapacity(bytes)
        var positions: [[LogPosition]] = []
        positions.reserveCapacity(batch.count)
        let base = segmentFirstPosition + UInt64(fileSize)
        var count: UInt64 = 0
        for request in batch {
            var these: [LogPosition] = []
            these.reserveCapacity(request.records.count)
            for record in request.records {
                these.append(LogPosition(rawValue: base + UInt64(buffer.count)))
                record.payload.withUnsafeBytes { Frame.append(kind: record.kind, version: record.version, payload: $0, to: &buffer) }
                count += 1
            }
            positions.append(these)
        }
        do {
            if fileSize + Int64(buffer.count) > allocatedSize {
                let step = max(options.preallocationStep, Int64(buffer.count))
                do {
                    try SystemCalls.preallocate(fd, allocatedSize, fileSize + step - allocatedSize)
                    allocatedSize = fileSize + step
                } catch where error.isNoSpace && step > Int64(buffer.count) {
                    // Nearly full: a whole step does not fit, but this batch may.
                    try SystemCalls.ftruncate(fd, allocatedSize)
                    try SystemCalls.preallocate(fd, allocatedSize, fileSize + Int64(buffer.count) - allocatedSize)
                    allocatedSize = fileSize + Int64(buffer.count)
                }
            }
        } catch {
            return fail(batch, LogError.from(error))
        }
        let syncs = batch.contains(where: \.syncs)
        do {
            if !buffer.isEmpty { try SystemCalls.pwrite(fd, buffer, fileSize) }
            if syncs { try SystemCalls.fdatasync(fd) }
        } catch {
            if unsynced && syncs {
                // Frames written before this batch may or may not be on disk.
                failure = "a sync failed (\(error)); reopen the log to recover"
            } else {
                undoPartialWrite()
            }
            return fail(batch, LogError.from(error))
        }
        unsynced = !syncs
        fileSize += Int64(buffer.count)
        segmentRecordCount += count
        buffer.withUnsafeBytes { segmentHasher.update($0) }
        for (request, these) in zip(batch, positions) { request.completion(.success(these)) }
    }

    /// Cuts the file back to the last durable frame so no partial frame stays behind.
    private func undoPartialWrite() {
        do {
            try SystemCalls.ftruncate(fd, fileSize)
            try SystemCalls.fdatasync(fd)
            allocatedSize = fileSize
        } catch {
            failure = "could not remove a partial append (\(error)); reopen the log to recover"
        }
    }

    private func fail(_ batch: [Request], _ error: LogError) {
        for request in batch { request.completion(.failure(error)) }
    }

    /// Writes the footer, syncs, and starts the next segment.
    private func sealAndRoll() throws(SystemError) {
        let recordsHash = segmentHasher.digest()
        let footerHash = Frame.Footer.hash(firstPosition: segmentFirstPosition, recordCount: segmentRecordCount, recordsHash: recordsHash, previousFooterHash: previousFooterHash)
        let footer = Frame.Footer(recordCount: segmentRecordCount, recordsHash: recordsHash, previousFooterHash: previousFooterHash, footerHash: footerHash)
        var frame: [UInt8] = []
        footer.payload.withUnsafeBytes { Frame.append(kind: LogFormat.footerKind, version: LogFormat.footerVersion, payload: $0, to: &frame) }
        do {
            try SystemCalls.pwrite(fd, frame, fileSize)
            // A sealed segment has its exact size: the next segment starts where it ends.
            try SystemCalls.ftruncate(fd, fileSize + Int64(frame.count))
            try SystemCalls.fdatasync(fd)
        } catch {
            undoPartialWrite()
            throw error
        }
        fileSize += Int64(frame.count)
        SystemCalls.close(fd)
        fd = -1
        previousFooterHash = footerHash
        try startSegment(at: segmentFirstPosition + UInt64(fileSize))
    }

    private func startSegment(at first: UInt64) throws(SystemError) {
        let path = directory + "/" + LogFormat.segmentName(firstPosition: first)
        let header = Frame.segmentHeader(firstPosition: first, previousFooterHash: previousFooterHash)
        let newFD = try SystemCalls.open(path, O_RDWR | O_CREAT | O_EXCL)
        do {
            try SystemCalls.pwrite(newFD, header, 0)
            try SystemCalls.fdatasync(newFD)
            try SystemCalls.syncDirectory(directory)
        } catch {
            SystemCalls.close(newFD)
            try? SystemCalls.unlink(path)
            throw error
        }
        fd = newFD
        segmentFirstPosition = first
        fileSize = Int64(header.count)
        allocatedSize = fileSize
        segmentRecordCount = 0
        segmentHasher = SHA256Hasher()
    }

    /// Checks a sealed segment's header and footer (not its frames: that is `verify`'s job) and
    /// returns its footer hash and size.
    private static func checkSealedSegment(_ segment: SegmentList.Segment, previousFooterHash: [UInt8]) throws(LogError) -> (footerHash: [UInt8], size: Int64) {
        let (fd, size) = try segment.openForReading()
        defer { SystemCalls.close(fd) }
        var header = [UInt8](repeating: 0, count: LogFormat.segmentHeaderSize)
        do { _ = try SystemCalls.pread(fd, into: &header, 0) } catch { throw .io(error) }
        let footer = try segment.readFooter(fd: fd, size: size)
        guard let parsedHeader = header.withUnsafeBytes({ Frame.parseSegmentHeader($0) }) else {
            throw .corrupted(LogProblem(file: segment.path, offset: 0, kind: .crcMismatch, detail: "segment header is damaged"))
        }
        guard parsedHeader.previousFooterHash == previousFooterHash, parsedHeader.firstPosition == segment.firstPosition else {
            throw .corrupted(LogProblem(file: segment.path, offset: 0, kind: .chainMismatch, detail: "segment header does not continue the previous segment"))
        }
        guard let footer else {
            throw .corrupted(LogProblem(file: segment.path, offset: max(0, size - Int64(LogFormat.footerFrameSize)), kind: .crcMismatch, detail: "sealed segment's footer is damaged or missing"))
        }
        guard footer.previousFooterHash == previousFooterHash,
              footer.footerHash == Frame.Footer.hash(firstPosition: segment.firstPosition, recordCount: footer.recordCount, recordsHash: footer.recordsHash, previousFooterHash: footer.previousFooterHash)
        else {
            throw .corrupted(LogProblem(file: segment.path, offset: size - Int64(LogFormat.footerFrameSize), kind: .chainMismatch, detail: "footer hash chain is broken"))
        }
        return (footer.footerHash, size)
    }
}
