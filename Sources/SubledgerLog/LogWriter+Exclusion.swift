#if canImport(Glibc)
import Glibc
#endif

extension LogWriter {
    /// Runs `body` holding the writer lock of the log in `directory` when no process holds it,
    /// so that nothing appends, or opens the log to append, meanwhile; a log not created yet has
    /// no writer either. Returns nil without running `body` when a writer holds it (a server
    /// running on the same data directory).
    public static func withoutWriter<T>(directory: String, _ body: () throws -> T) throws -> T? {
        do { return try excludingWriter(directory: directory, body) } catch LogError.locked { return nil }
    }

    /// As `withoutWriter`, but a writer holding the lock is `LogError.locked`, naming it.
    public static func excludingWriter<T>(directory: String, _ body: () throws -> T) throws -> T {
        guard access(directory, F_OK) == 0 else { return try body() }
        let lock = try WriterLock(directory: directory)
        defer { lock.release() }
        return try body()
    }
}
