#if canImport(Glibc)
import Glibc
#endif

/// `mkdir -p`, shared by everything that is given a directory to write into: a user names a
/// place (`--data`, `--out`, a backup's destination) and expects it made, parents included.
public enum DirectoryPath {
    /// A component of the path could not be made.
    public struct CreationError: Error, Sendable, Equatable, CustomStringConvertible {
        /// The component that failed: the path itself or one of its parents.
        public let path: String
        public let errno: Int32

        public var description: String {
            "cannot create the directory \(path): \(String(cString: strerror(errno)))"
        }
    }

    /// Creates `path` and every missing parent with `mode` (less the umask); components that
    /// already exist, as directories or links to one, are left as they are.
    public static func create(_ path: String, mode: mode_t = 0o755) throws(CreationError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component
            if mkdir(prefix, mode) != 0 {
                let code = errno
                guard code == EEXIST, isDirectory(prefix) else {
                    throw CreationError(path: prefix, errno: code == EEXIST ? ENOTDIR : code)
                }
            }
            prefix += "/"
        }
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }
}
