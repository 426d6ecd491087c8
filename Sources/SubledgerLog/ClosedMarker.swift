#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore

/// Where a log ended when its writer closed it cleanly: the file `CLOSED` in its directory,
/// written as the writer closes and removed as the next one opens.
///
/// A crash can cut an append short, and its remains (a frame cut off, or whole but failing its
/// check, in preallocated space) are cut when the log is next opened: nothing after them was
/// ever acknowledged. A log that was closed cleanly had no append in progress, so the same
/// signs there are damage done at rest (a flipped bit, a file cut short, an older copy of a
/// segment put back), and cutting them would delete acknowledged records. With the marker,
/// opening refuses such a log and `verify` names it, rather than calling it a torn tail. After a
/// segment was put back from a backup on purpose, accepting the loss of what came after it,
/// removing `CLOSED` lets the log open as after a crash.
enum ClosedMarker {
    static let name = "CLOSED"

    /// The end recorded by the last clean close, if the log has not been opened for writing since.
    static func end(in directory: String) -> LogPosition? {
        guard let fd = try? SystemCalls.open(directory + "/" + name, O_RDONLY) else { return nil }
        defer { SystemCalls.close(fd) }
        var bytes = [UInt8](repeating: 0, count: 32)
        guard let count = try? SystemCalls.pread(fd, into: &bytes, 0), count > 1, bytes[count - 1] == UInt8(ascii: "\n") else { return nil }
        return UInt64(String(decoding: bytes[..<(count - 1)], as: UTF8.self)).map(LogPosition.init(rawValue:))
    }

    /// A log that ends at `end` while its marker says `closed`: what it has suffered, and the way on.
    static func mismatch(file: String, offset: Int64, end: LogPosition, closed: LogPosition) -> LogProblem {
        var problem = LogProblem(file: file, offset: offset, kind: .truncated, detail: "the log ends at position \(end), but it was closed cleanly at position \(closed): ")
        if end < closed {
            problem.detail += "records were cut off, or an older copy of a segment was put back"
            problem.remedy = "restore the segment from a backup, or, to accept the log as it is (after putting back a segment on purpose), remove \(name) from its directory"
        } else {
            // Nothing lost: restoring a backup would throw away what was appended since.
            problem.detail += "something appended to it without removing \(name), as a subledger older than 2026-12-05 does (a rollback?)"
            problem.remedy = "if the records after \(closed) are that build's, remove \(name) from this log's directory (and from the data directory's other logs) to take them"
        }
        return problem
    }

    /// Records `end` durably (`AtomicFile`).
    static func write(_ end: LogPosition, in directory: String) throws(SystemError) {
        do { try AtomicFile.write(Array("\(end.rawValue)\n".utf8), to: directory + "/" + name) } catch {
            throw SystemError(call: "\(error.operation) \(error.path)", errno: error.errno)
        }
    }

    /// Removes the marker durably, before anything is appended: a crash from then on leaves a
    /// log whose torn tail is cut as usual.
    static func remove(in directory: String) throws(SystemError) {
        // Gone already: removed before a sync of the directory that failed.
        do { try SystemCalls.unlink(directory + "/" + name) } catch where error.errno == ENOENT {}
        try SystemCalls.syncDirectory(directory)
    }

    /// The marker's end if it names the same end before and after `read`, which reads the log
    /// without the writer lock: a writer that opened meanwhile removes it before its first append,
    /// and a log read while it grew is no evidence of damage.
    static func end<T>(in directory: String, around read: () throws -> T) rethrows -> (result: T, closedEnd: LogPosition?) {
        let before = end(in: directory)
        let result = try read()
        let after = end(in: directory)
        return (result, before == after ? before : nil)
    }
}
