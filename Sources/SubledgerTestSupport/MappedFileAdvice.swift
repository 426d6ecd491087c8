import Foundation

/// How this process maps a file, as `/proc/self/smaps` says.
public enum MappedFileAdvice {
    /// For each of this process's mappings of `file`, whether it is advised random access
    /// (`madvise(MADV_RANDOM)`: `rr` among its `VmFlags`), which turns off the kernel's readahead
    /// and its mapping of a touched page's cached neighbours. Empty when the file is not mapped.
    public static func randomAccess(of file: String) throws -> [Bool] {
        var status = stat()
        guard stat(file, &status) == 0 else { return [] }
        // By inode, not by the path, which smaps escapes and a bind mount changes.
        let inode = String(status.st_ino)
        var advice: [Bool] = []
        var inTarget = false
        for line in try readProcessFile("/proc/self/smaps").split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            // A mapping's first line: address range, permissions, offset, device, inode, path.
            if let first = fields.first, first.contains("-"), first.allSatisfy({ $0.isHexDigit || $0 == "-" }) {
                inTarget = fields.count >= 5 && fields[4] == inode
            } else if inTarget, fields.first == "VmFlags:" {
                advice.append(fields.dropFirst().contains("rr"))
            }
        }
        return advice
    }
}

/// A file of `/proc` read to its end: `String(contentsOfFile:)` returns what its first read
/// gives of a file that reports no size, as these do (4 KB of `/proc/self/smaps`).
public func readProcessFile(_ path: String) throws -> String {
    guard let handle = FileHandle(forReadingAtPath: path) else { throw CocoaError(.fileNoSuchFile) }
    defer { try? handle.close() }
    return String(decoding: try handle.readToEnd() ?? Data(), as: UTF8.self)
}
