#if canImport(Glibc)
import Glibc
#endif

/// `mkdir -p`, shared by everything that is given a directory to write into: a user names a
/// place (`--data`, `--out`, a backup's destination) and expects it made, parents included.
public enum DirectoryPath {
    /// A directory could not be made or synced.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        /// The directory that failed: the path itself or, when creating, one of its parents.
        public let path: String
        public let errno: Int32
        /// `create` or `sync`.
        public let operation: String

        public var description: String {
            "cannot \(operation) the directory \(path): \(String(cString: strerror(errno)))"
        }
    }

    /// Creates `path` and every missing parent with `mode` (less the umask); components that
    /// already exist, as directories or links to one, are left as they are.
    public static func create(_ path: String, mode: mode_t = 0o755) throws(Failure) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, mode) != 0 {
                let code = errno
                guard code == EEXIST, isDirectory(prefix) else {
                    throw Failure(path: prefix, errno: code == EEXIST ? ENOTDIR : code, operation: "create")
                }
            }
            prefix += "/"
        }
    }

    /// The directory holding `path`: "." for a bare name, "/" for a name at the root.
    public static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// `fsync(2)` of the directory itself: the names created, renamed or removed in it are
    /// durable. Throws with the failing call's errno.
    public static func sync(_ path: String) throws(Failure) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        let synced = fd >= 0 && fsync(fd) == 0
        let code = errno
        if fd >= 0 { close(fd) }
        guard synced else { throw Failure(path: path, errno: code, operation: "sync") }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}

/// Which directory a path named when it was taken (device and inode): a process that keeps a
/// directory's files open and writes new ones by its path tells by it that the path has since
/// been moved or replaced, as a restore done with the server running does, and writing there
/// would put its files into another directory.
public struct DirectoryIdentity: Sendable, Equatable {
    private let device: UInt64
    private let inode: UInt64

    /// The directory at `path` now; nil when there is none.
    public init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// Whether `path` still names this directory. A `stat` that fails for another reason than
    /// the path being gone (EIO, ESTALE on a network file system) tells nothing, and answers true:
    /// a passing fault must not stop a ledger as if it had been moved.
    public func isNamed(by path: String) -> Bool {
        var info = stat()
        guard stat(path, &info) == 0 else { return errno != ENOENT && errno != ENOTDIR }
        return info.st_mode & S_IFMT == S_IFDIR && UInt64(info.st_dev) == device && UInt64(info.st_ino) == inode
    }
}
