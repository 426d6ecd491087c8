#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore

/// The segment files of a log directory, in position order.
struct SegmentList {
    struct Segment {
        var firstPosition: UInt64
        var path: String

        /// Opens the segment read-only; returns the descriptor (the caller closes it) and size.
        func openForReading() throws(LogError) -> (fd: Int32, size: Int64) {
            let fd: Int32
            do { fd = try SystemCalls.open(path, O_RDONLY) } catch { throw .io(error) }
            do { return (fd, try SystemCalls.fileSize(fd)) } catch {
                SystemCalls.close(fd)
                throw .io(error)
            }
        }

        /// A segment that does not start where the log before it ends (`expected`): starting
        /// later, the segments between were removed, or the one before it cut short; earlier,
        /// it overlaps the one before.
        func startProblem(expected: UInt64) -> LogProblem? {
            guard firstPosition != expected else { return nil }
            guard expected < firstPosition else {
                return LogProblem(file: path, offset: 0, kind: .chainMismatch, detail: "segment starts at position \(firstPosition) but the one before it ends at \(expected)")
            }
            return LogProblem(
                file: path, offset: 0, kind: .truncated,
                detail: "no segment holds positions \(expected) to \(firstPosition): \(LogFormat.segmentName(firstPosition: expected)) was removed, or the segment before this one cut short; restore it from a backup")
        }

        /// The footer of a sealed segment: its last frame, or nil when that is not a valid footer.
        func readFooter(fd: Int32, size: Int64) throws(LogError) -> Frame.Footer? {
            var frame = [UInt8](repeating: 0, count: LogFormat.footerFrameSize)
            do { _ = try SystemCalls.pread(fd, into: &frame, max(0, size - Int64(LogFormat.footerFrameSize))) } catch { throw .io(error) }
            return frame.withUnsafeBytes { raw in
                guard case .frame(let kind, _, let payload, _) = Frame.parse(raw, at: 0), kind == LogFormat.footerKind else { return nil }
                return Frame.Footer(payload: UnsafeRawBufferPointer(rebasing: raw[payload]))
            }
        }
    }

    var directory: String
    var segments: [Segment]

    init(directory: String) throws(SystemError) {
        self.directory = directory
        segments = try SystemCalls.listDirectory(directory)
            .compactMap { name in LogFormat.firstPosition(ofSegmentNamed: name).map { Segment(firstPosition: $0, path: directory + "/" + name) } }
            .sorted { $0.firstPosition < $1.firstPosition }
    }

    /// The first positions no segment holds, or held by two, as damage: a log starts at position
    /// 0 and each segment where the one before it ends, so a gap is a segment file removed (or the
    /// one before it cut short). Without this, the segment after a removed one was named as the
    /// damage (its header's chain), and restoring it changed nothing.
    func gap() throws(LogError) -> LogProblem? {
        var expected: UInt64 = 0
        for (index, segment) in segments.enumerated() {
            if let problem = segment.startProblem(expected: expected) { return problem }
            guard index < segments.count - 1 else { break }
            let (fd, size) = try segment.openForReading()
            SystemCalls.close(fd)
            expected = segment.firstPosition + UInt64(size)
        }
        return nil
    }

    /// Index of the segment holding `position`.
    func index(containing position: UInt64) -> Int? {
        var result: Int?
        for (i, segment) in segments.enumerated() where segment.firstPosition <= position { result = i }
        return result
    }
}
