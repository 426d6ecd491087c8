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

    /// Replaces `path` whole (`AtomicFile`): the new file is created with `mode`, less the umask.
    public static func writeAtomically(_ path: String, _ bytes: [UInt8], mode: mode_t = 0o600) throws(LedgerError) {
        do { try AtomicFile.write(bytes, to: path, mode: mode) } catch { throw LedgerError.storage(error.description) }
    }

    static func makeDirectory(_ path: String, mode: mode_t = 0o700) throws(LedgerError) {
        do { try DirectoryPath.create(path, mode: mode) } catch { throw LedgerError.storage(error.description) }
    }

    public static func exists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }
}
