#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore

/// Small whole-file helpers for configuration files (not for the logs).
public enum FileIO {
    public static func read(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = fread(&chunk, 1, chunk.count, file)
            if n > 0 { bytes += chunk[0..<n] }
            if n < chunk.count { break }
        }
        return ferror(file) == 0 ? bytes : nil
    }

    /// Writes a temporary file created with `mode` (less the umask: a key made 0600 is never
    /// readable by others, not even for an instant), syncs it and renames it over `path`.
    public static func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws(LedgerError) {
        let temporary = path + ".tmp"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard fd >= 0 else { throw LedgerError.storage("cannot write \(temporary): \(String(cString: strerror(errno)))") }
        var written = 0
        var code: Int32 = 0
        while written < bytes.count {
            let count = bytes[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                code = count < 0 ? errno : ENOSPC
                break
            }
            written += count
        }
        if code == 0, fsync(fd) != 0 { code = errno }
        close(fd)
        if code == 0, rename(temporary, path) != 0 { code = errno }
        guard code == 0 else {
            unlink(temporary)
            throw LedgerError.storage("cannot write \(path): \(String(cString: strerror(code)))")
        }
        // The rename is durable once its directory is.
        do { try DirectoryPath.sync(DirectoryPath.parent(of: path)) } catch { throw LedgerError.storage(error.description) }
    }

    static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(LedgerError) {
        do { try DirectoryPath.create(path, mode: mode) } catch { throw LedgerError.storage(error.description) }
    }

    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }
}
