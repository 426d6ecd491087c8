#if canImport(Glibc)
import Glibc
#endif

/// Results go to stdout, diagnostics and progress to stderr (written to fd 2 directly: the
/// C `stderr` global is not concurrency-safe in Swift 6).
enum Output {
    static func print(_ text: String) {
        Swift.print(text)
    }

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

    /// A plain-text table: a header row, then rows, columns padded to their widest cell.
    static func table(_ header: [String], _ rows: [[String]]) -> String {
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in cell + String(repeating: " ", count: widths[i] - cell.count) }.joined(separator: "  ")
        }
        let lines = header.allSatisfy(\.isEmpty) ? rows.map(line) : [line(header)] + rows.map(line)
        return lines.joined(separator: "\n")
    }
}
