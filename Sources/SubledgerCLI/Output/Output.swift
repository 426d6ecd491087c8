#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// Diagnostics and progress, on stderr as they happen (written to fd 2 directly: the C
/// `stderr` global is not concurrency-safe in Swift 6). Results go through `Emitter`.
enum Output {
    /// Whether a progress line on a terminal waits for its newline: the next diagnostic (an
    /// error, say) must not run on after it.
    private static let progressLineOpen = Atomic(false)

    static func diagnostic(_ text: String) {
        endProgress()
        write(text + "\n")
    }

    /// A progress line that rewrites itself on a terminal and prints plainly otherwise.
    static func progress(_ text: String) {
        if isatty(2) != 0 {
            progressLineOpen.store(true, ordering: .relaxed)
            write("\r\u{1B}[K" + text)
        } else {
            diagnostic(text)
        }
    }

    /// Ends a progress line left open on a terminal; does nothing otherwise.
    static func endProgress() {
        if progressLineOpen.exchange(false, ordering: .relaxed) { write("\n") }
    }

    private static func write(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { Glibc.write(2, $0.baseAddress, $0.count - 1) }
    }
}
