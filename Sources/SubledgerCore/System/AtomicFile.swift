#if canImport(Glibc)
import Glibc
#endif

/// A small file replaced whole: a crash leaves the old contents or the new, never a torn file,
/// and a full disk leaves the old. Settings, seals, pointers and markers are written this way.
public enum AtomicFile {
    /// A step failed. Before the rename the file at `path` is as it was; after it (`sync the
    /// directory of`) the new contents are in place but may not survive a crash.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The file the step was on: the temporary beside it, the file itself, or its directory.
        public let path: String
        /// `remove`, `create`, `write`, `sync` (the temporary), `rename TEMPORARY to` or
        /// `sync the directory of` (the file).
        public let operation: String
        public let errno: Int32

        public var description: String {
            "cannot \(operation) \(path): \(String(cString: strerror(errno)))"
        }
    }

    /// Writes `bytes` to `temporary` (by default `path` + `.tmp`), created afresh with `mode`
    /// (less the umask: a key made 0600 is never readable by others, not even for an instant),
    /// syncs it, renames it over `path` and syncs the directory, which makes the rename durable.
    /// Made afresh: a file or link left at the temporary's name is removed first, never written
    /// through.
    public static func write(_ bytes: [UInt8], to path: String, temporary: String? = nil, mode: mode_t = 0o600) throws(Failure) {
        let temporary = temporary ?? path + ".tmp"
        guard unlink(temporary) == 0 || errno == ENOENT else { throw Failure(path: temporary, operation: "remove", errno: errno) }
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw Failure(path: temporary, operation: "create", errno: errno) }
        var failure: Failure?
        var written = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                failure = Failure(path: temporary, operation: "write", errno: count < 0 ? errno : ENOSPC)
                break
            }
            written += count
        }
        if failure == nil, fsync(fd) != 0 { failure = Failure(path: temporary, operation: "sync", errno: errno) }
        close(fd)
        if failure == nil, rename(temporary, path) != 0 { failure = Failure(path: path, operation: "rename \(temporary) to", errno: errno) }
        if let failure {
            unlink(temporary)
            throw failure
        }
        do { try DirectoryPath.sync(DirectoryPath.parent(of: path)) } catch {
            throw Failure(path: path, operation: "sync the directory of", errno: error.errno)
        }
    }
}
