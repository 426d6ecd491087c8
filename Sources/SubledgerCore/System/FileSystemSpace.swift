#if canImport(Glibc)
import Glibc
#endif

/// Room left on the file system that holds a path.
public enum FileSystemSpace {
    /// The bytes an unprivileged user can still write there (`statvfs`'s `f_bavail`: root's
    /// reserve left out, as the ledger's service user cannot use it); nil when it cannot be read.
    public static func available(at path: String) -> Int64? {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return nil }
        // Saturated: some FUSE file systems report counts no disk has.
        let (bytes, overflow) = Int64(clamping: info.f_bavail).multipliedReportingOverflow(by: Int64(clamping: info.f_frsize))
        return overflow ? .max : bytes
    }
}
