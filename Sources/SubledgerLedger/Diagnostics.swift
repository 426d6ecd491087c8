#if canImport(Glibc)
import Glibc
#endif

/// What the ledger says on stderr about what it repaired or could not do, beside a command's
/// own output.
enum Diagnostics {
    /// One line on stderr (fd 2: the C `stderr` global is not concurrency-safe in Swift 6).
    static func report(_ text: String) {
        let line = "subledger: " + text + "\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }
}
