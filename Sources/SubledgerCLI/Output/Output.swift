#if canImport(Glibc)
import Glibc
#endif

/// Diagnostics and progress, on stderr as they happen (written to fd 2 directly: the C
/// `stderr` global is not concurrency-safe in Swift 6). Results go through `Emitter`.
enum Output {
    static func diagnostic(_ text: String) {
        let line = text + "\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }

    /// A progress line that rewrites itself on a terminal and prints plainly otherwise.
    static func progress(_ text: String) {
        if isatty(2) != 0 {
            let line = "\r\u{1B}[K" + text
            _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
        } else {
            diagnostic(text)
        }
    }

    static func endProgress() {
        if isatty(2) != 0 { diagnostic("") }
    }
}
