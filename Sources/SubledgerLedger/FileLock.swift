#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore

/// An exclusive `flock(2)` on a file or directory, waited for: commands that rebuild the
/// projection database on open take turns on `projections/REBUILD.lock`, backups into one
/// directory on that directory. Released when closed or when the process ends.
final class FileLock {
    /// The lock could not be taken; `errno` says why.
    struct Failure: Error, CustomStringConvertible {
        let path: String
        let operation: String
        let errno: Int32

        var description: String { "cannot \(operation) \(path): \(String(cString: strerror(errno)))" }

        /// The file system cannot lock a directory: NFS emulates `flock` with byte-range locks,
        /// which a directory opened to read cannot take.
        var isUnsupported: Bool { [EBADF, ENOLCK, EOPNOTSUPP].contains(errno) }

        /// This user may not create or open the lock file there.
        var isPermissionDenied: Bool { [EACCES, EPERM, EROFS].contains(errno) }
    }

    private var fd: Int32

    /// Locks `path`, a directory, or a file created when missing; `waiting` is called once if
    /// another process holds it.
    init(_ path: String, isDirectory: Bool = false, waiting: () -> Void = {}) throws(Failure) {
        fd = isDirectory ? open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Failure(path: path, operation: "open", errno: errno) }
        // Named through a function type: `flock` alone resolves to the struct of the same name.
        let flock: (Int32, Int32) -> Int32 = Glibc.flock(_:_:)
        var operation = LOCK_EX | LOCK_NB
        while flock(fd, operation) != 0 {
            let code = errno
            if code == EWOULDBLOCK, operation & LOCK_NB != 0 {
                waiting()
                operation = LOCK_EX
            } else if code != EINTR {
                close(fd)
                fd = -1
                throw Failure(path: path, operation: "lock", errno: code)
            }
        }
    }

    /// Whether a process holds the lock on the file at `path` now (false when there is none).
    static func isHeld(_ path: String) -> Bool {
        let fd = open(path, O_RDWR | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let flock: (Int32, Int32) -> Int32 = Glibc.flock(_:_:)
        return flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK
    }

    func release() {
        guard fd >= 0 else { return }
        close(fd)
        fd = -1
    }

    deinit { release() }
}
