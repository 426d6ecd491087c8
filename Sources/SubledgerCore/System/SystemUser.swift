#if canImport(Glibc)
import Glibc
#endif

/// Users by id, for messages that name one (whose files, who to run as).
public enum SystemUser {
    /// The name of `uid` (`getpwuid_r`: a message may be described on several threads at
    /// once); nil where the system has none.
    public static func name(_ uid: uid_t) -> String? {
        var entry = passwd()
        var found: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        return buffer.withUnsafeMutableBufferPointer { storage in
            guard let base = storage.baseAddress, getpwuid_r(uid, &entry, base, storage.count, &found) == 0, found != nil, let name = entry.pw_name else { return nil }
            return String(cString: name)
        }
    }
}
