#if canImport(Glibc)
import Glibc
#endif

/// Copies a log directory while a writer in another process may be appending to it: the backup
/// of a live log. Needs no lock on the source.
///
/// Sealed segments never change, so one the destination already holds with the same size and
/// footer is skipped (an incremental backup copies only what is new). The active segment is read
/// once and copied up to the end of its last complete frame: every record acknowledged before the
/// read began is in it, and a frame still being written is left out. The destination is a log
/// directory that `LogWriter` and `LogReader` open, marked closed where the copy ends
/// (`ClosedMarker`, removed before the copy grows); its writer lock is held while copying, so
/// neither a ledger opened on the backup nor a second backup can change it meanwhile.
public enum LogCopy {
    public struct Summary: Sendable, Equatable {
        public var segmentsCopied = 0
        public var segmentsSkipped = 0
        public var bytesCopied: Int64 = 0
        /// The position after the copy's last record: the next append's position.
        public var end = LogPosition.start

        public init() {}
    }

    /// The destination holds segments that are not this log's: a backup of another ledger, or
    /// one a ledger has appended to since.
    public struct Mismatch: Error, Sendable, CustomStringConvertible {
        public var file: String

        public var description: String {
            "\(file) is not a copy of the log being backed up (a backup of another ledger, or one written to since); back up into a new directory"
        }
    }

    /// Where the next record of the log at `source` will be appended, as it is now: a bound for
    /// `copy(from:to:upTo:)`. Reads the active segment, as a copy does.
    public static func end(of source: String) throws -> LogPosition {
        let closed = ClosedMarker.end(in: source)
        do {
            guard let active = try SegmentList(directory: source).segments.last else { return .start }
            let (_, walk) = try readActive(active, closedAt: closed, log: source)
            return LogPosition(rawValue: active.firstPosition + UInt64(walk.validEnd))
        } catch let error as SystemError { throw LogError.io(error) }
    }

    /// Copies `source` into `destination` (created when missing), up to `bound` when given (a
    /// record boundary `end(of:)` returned: records appended since are left out). `progress`
    /// gets the summary so far after each segment, and the number of segments to go through.
    public static func copy(
        from source: String, to destination: String, upTo bound: LogPosition? = nil,
        progress: (Summary, _ segments: Int) throws -> Void = { _, _ in }
    ) throws -> Summary {
        do { try SystemCalls.makeDirectories(destination) } catch { throw LogError.io(error) }
        let lock = try WriterLock(directory: destination)
        defer { lock.release() }
        // Before the listing: a writer that rolled a segment and closed after it would otherwise
        // leave a marker that matches itself around the read of a segment no longer the last.
        let closed = ClosedMarker.end(in: source)
        let sources: SegmentList
        let existing: SegmentList
        do {
            sources = try SegmentList(directory: source)
            existing = try SegmentList(directory: destination)
        } catch { throw LogError.io(error) }
        try requireEarlierCopy(of: sources, in: existing)
        // The copy grows: a marker of where an earlier copy, or a writer opened on it, ended no
        // longer holds. The copy is marked closed where it ends once it is whole.
        do { try ClosedMarker.remove(in: destination) } catch { throw LogError.io(error) }
        var summary = Summary()
        guard !sources.segments.isEmpty else { return summary }
        let held = Dictionary(uniqueKeysWithValues: existing.segments.map { ($0.firstPosition, $0) })
        for (index, segment) in sources.segments.enumerated() {
            if let bound, segment.firstPosition >= bound.rawValue { break }
            let target = destination + "/" + LogFormat.segmentName(firstPosition: segment.firstPosition)
            // Within this segment: it was the active one when the bound was taken.
            let boundOffset = bound.map { Int64($0.rawValue - segment.firstPosition) }
            do {
                if index < sources.segments.count - 1 {
                    let sealed = try sealedEnd(of: segment)
                    // Equal to the source's when present: `requireEarlierCopy` checked it.
                    let copy = try held[segment.firstPosition].flatMap(sealedEnd(of:))
                    var length = sealed?.size ?? 0
                    if let boundOffset, let sealed, boundOffset < sealed.size {
                        // Sealed since the bound was taken: copied up to it, as the active segment
                        // it then was, which the next copy completes.
                        let bytes = try readWholeFile(segment.path)
                        try write(bytes, length: boundOffset, to: target)
                        summary.segmentsCopied += 1
                        summary.bytesCopied += boundOffset
                        summary.end = LogPosition(rawValue: segment.firstPosition + UInt64(boundOffset))
                        try progress(summary, sources.segments.count)
                        break
                    } else if copy != nil {
                        summary.segmentsSkipped += 1
                    } else {
                        let bytes = try readWholeFile(segment.path)
                        length = Int64(bytes.count)
                        try write(bytes, length: length, to: target)
                        summary.segmentsCopied += 1
                        summary.bytesCopied += length
                    }
                    summary.end = LogPosition(rawValue: segment.firstPosition + UInt64(length))
                } else {
                    let (bytes, walk) = try readActive(segment, closedAt: closed, log: source)
                    guard walk.header != nil else { break }  // being created: nothing appended yet
                    let length = min(walk.validEnd, boundOffset ?? walk.validEnd)
                    try write(bytes, length: length, to: target)
                    summary.segmentsCopied += 1
                    summary.bytesCopied += length
                    summary.end = LogPosition(rawValue: segment.firstPosition + UInt64(length))
                }
            } catch let error as SystemError {
                throw LogError.io(error)
            }
            try progress(summary, sources.segments.count)
        }
        do {
            try SystemCalls.syncDirectory(destination)
            if summary.end > .start { try ClosedMarker.write(summary.end, in: destination) }
        } catch { throw LogError.io(error) }
        return summary
    }

    /// The first damage in what `copy` would read of `source` into `destination`: the sealed
    /// segments `destination` does not hold and the active segment. A backup checks it before
    /// writing anything into an earlier backup, which would otherwise be left half brought up to
    /// date from a damaged ledger.
    public static func damage(in source: String, copyingInto destination: String) throws -> LogProblem? {
        do {
            let closed = ClosedMarker.end(in: source)
            let sources = try SegmentList(directory: source)
            let held = access(destination, F_OK) == 0 ? try SegmentList(directory: destination) : nil
            let copies = Dictionary(uniqueKeysWithValues: (held?.segments ?? []).map { ($0.firstPosition, $0) })
            for (index, segment) in sources.segments.enumerated() {
                guard index < sources.segments.count - 1 else {
                    do { _ = try readActive(segment, closedAt: closed, log: source) } catch LogError.corrupted(let problem) { return problem }
                    continue
                }
                if let copy = copies[segment.firstPosition], let end = try sealedEnd(of: copy), try sealedEnd(of: segment) == end { continue }
                let walk = SegmentWalk(file: segment.path, bytes: try readWholeFile(segment.path))
                if let problem = walk.problems.first { return problem }
                if let problem = walk.sealedTailProblem(file: segment.path) { return problem }
            }
            return nil
        } catch let error as SystemError { throw LogError.io(error) }
    }

    /// Throws `Mismatch` unless every record `destination` holds is in `source` at the same
    /// position, byte for byte: an earlier copy, which `copy` brings up to date and so loses
    /// nothing. A missing `destination` holds nothing.
    public static func requireEarlierCopy(of source: String, in destination: String) throws {
        guard access(destination, F_OK) == 0 else { return }
        do {
            let existing = try SegmentList(directory: destination)
            guard access(source, F_OK) == 0 else {
                if let stray = existing.segments.first { throw Mismatch(file: stray.path) }
                return
            }
            try requireEarlierCopy(of: try SegmentList(directory: source), in: existing)
        } catch let error as SystemError { throw LogError.io(error) }
    }

    private static func requireEarlierCopy(of sources: SegmentList, in existing: SegmentList) throws {
        let originals = Dictionary(uniqueKeysWithValues: sources.segments.map { ($0.firstPosition, $0) })
        for segment in existing.segments {
            guard let original = originals[segment.firstPosition] else { throw Mismatch(file: segment.path) }
            if let sealed = try sealedEnd(of: segment) {
                guard try sealedEnd(of: original) == sealed else { throw Mismatch(file: segment.path) }
                continue
            }
            // The active segment of an earlier copy: its frames must begin the original's. Its
            // header alone is the same in every log, so a damaged one proves nothing either way.
            let held = try readWholeFile(segment.path)
            let walk = SegmentWalk(file: segment.path, bytes: held)
            guard walk.problems.isEmpty, walk.header != nil else { throw Mismatch(file: segment.path) }
            let bytes = held.prefix(Int(walk.validEnd))
            let (fd, size) = try original.openForReading()
            defer { SystemCalls.close(fd) }
            var prefix = [UInt8](repeating: 0, count: bytes.count)
            guard size >= Int64(bytes.count), try SystemCalls.pread(fd, into: &prefix, 0) == bytes.count, prefix[...] == bytes else {
                throw Mismatch(file: segment.path)
            }
        }
    }

    /// Copies again, from `source`, the sealed segments of the copy in `destination` that
    /// `problems` name, when the source's segment is sound: a copy damaged at rest, or copied
    /// from damage since mended, was otherwise skipped as unchanged by every later backup, its
    /// footer being intact. Returns the segments copied again.
    public static func recopyDamaged(_ problems: [LogProblem], from source: String, in destination: String) throws -> [String] {
        let lock = try WriterLock(directory: destination)
        defer { lock.release() }
        let copies: SegmentList
        do { copies = try SegmentList(directory: destination) } catch { throw LogError.io(error) }
        let damaged = Set(problems.map(\.file))
        var copied: [String] = []
        for segment in copies.segments.dropLast() where damaged.contains(segment.path) {
            let name = LogFormat.segmentName(firstPosition: segment.firstPosition)
            do {
                let bytes = try readWholeFile(source + "/" + name)
                let walk = SegmentWalk(file: source + "/" + name, bytes: bytes)
                guard walk.problems.isEmpty, walk.tornTail == nil, walk.footer != nil else { continue }
                try write(bytes, length: Int64(bytes.count), to: segment.path)
                copied.append(name)
            } catch let error where error.errno == ENOENT {
                continue
            } catch {
                throw LogError.io(error)
            }
        }
        if !copied.isEmpty {
            do { try SystemCalls.syncDirectory(destination) } catch { throw LogError.io(error) }
        }
        return copied
    }

    /// The active segment's bytes, read once (what is walked is what is written), and its walk.
    /// A read racing an append can see a later page of it before an earlier one, which looks
    /// like damage followed by valid frames: such a read is repeated before it counts as damage.
    ///
    /// A log closed cleanly at `closed` (`ClosedMarker`, read before the segments were listed
    /// and the same after this read: no writer opened it in between) had no append in progress,
    /// so a tail that fails its check is damage done at rest, as `verify` says: copied up to it
    /// as a torn append, the backup left out an acknowledged record, marked itself closed there
    /// and verified clean.
    private static func readActive(_ segment: SegmentList.Segment, closedAt closed: LogPosition?, log directory: String) throws -> ([UInt8], SegmentWalk) {
        var attempt = 0
        while true {
            let bytes = try readWholeFile(segment.path)
            let walk = SegmentWalk(file: segment.path, bytes: bytes)
            if walk.problems.isEmpty {
                guard let closed, ClosedMarker.end(in: directory) == closed,
                      let problem = walk.problem(closedCleanlyAt: closed, segment: segment) else { return (bytes, walk) }
                throw LogError.corrupted(problem)
            }
            attempt += 1
            if attempt == 5 { throw LogError.corrupted(walk.problems[0]) }
            usleep(20_000)
        }
    }

    /// A sealed segment's size and footer hash, which together name its content (the footer
    /// hashes every record and the chain before it); nil when it has no valid footer (the
    /// active segment of an earlier run).
    private static func sealedEnd(of segment: SegmentList.Segment) throws -> SealedEnd? {
        let (fd, size) = try segment.openForReading()
        defer { SystemCalls.close(fd) }
        return try segment.readFooter(fd: fd, size: size).map { SealedEnd(size: size, footerHash: $0.footerHash) }
    }

    private struct SealedEnd: Equatable {
        var size: Int64
        var footerHash: [UInt8]
    }

    /// Writes the segment under a temporary name, syncs it and renames it into place, so an
    /// interrupted backup never leaves a half-written segment under a segment's name.
    /// A failure names the file (`open` and `rename` name theirs): "pwrite: No space left on
    /// device" left the user to guess which disk, the backup's or the ledger's.
    private static func write(_ bytes: [UInt8], length: Int64, to target: String) throws(SystemError) {
        let temporary = target + ".partial"
        let fd = try SystemCalls.open(temporary, O_WRONLY | O_CREAT | O_TRUNC)
        defer { SystemCalls.close(fd) }
        do {
            try SystemCalls.pwrite(fd, length == bytes.count ? bytes : Array(bytes.prefix(Int(length))), 0)
            try SystemCalls.fsync(fd)
        } catch {
            throw SystemError(call: "\(error.call) \(temporary)", errno: error.errno)
        }
        try SystemCalls.rename(temporary, target)
    }
}
