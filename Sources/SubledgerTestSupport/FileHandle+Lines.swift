import Foundation

extension FileHandle {
    /// Bytes up to the first newline (blocking): a child process's first line on a pipe.
    public func availableLine() -> [UInt8] {
        var line: [UInt8] = []
        while let byte = try? read(upToCount: 1), let first = byte.first, first != 0x0A { line.append(first) }
        return line
    }
}
