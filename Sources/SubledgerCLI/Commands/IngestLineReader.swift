#if canImport(Glibc)
import Glibc
#endif

/// The lines of an input for `ingest`, read from its descriptor a megabyte at a time, each kept
/// up to `limit` bytes and the rest read and dropped: `getline` held a whole line however long,
/// and a line with no end (`/dev/zero`) took every byte of memory. A read that fails is told
/// apart from the end of the input.
struct IngestLineReader {
    private let descriptor: Int32
    private let limit: Int
    /// A 16 KB notification a read: stdio's 4 KiB made four `read(2)` calls of each.
    private var chunk = [UInt8](repeating: 0, count: 1 << 20)
    private var start = 0
    private var end = 0
    /// The `errno` of a read that failed; the lines before it were given.
    private(set) var failure: Int32?

    init(_ descriptor: Int32, limit: Int) {
        self.descriptor = descriptor
        self.limit = limit
    }

    /// The next line, its newline included, cut at `limit` bytes; nil at the end of the input
    /// or at a failed read, which drops the part of a line read before it.
    mutating func next() -> [UInt8]? {
        var line: [UInt8] = []
        var read = false
        while true {
            if start == end {
                guard failure == nil else { return nil }
                let count = chunk.withUnsafeMutableBytes { buffer in
                    var count: Int
                    repeat { count = Glibc.read(descriptor, buffer.baseAddress, buffer.count) } while count < 0 && errno == EINTR
                    return count
                }
                if count < 0 {
                    failure = errno
                    return nil
                }
                if count == 0 { return read ? line : nil }
                (start, end) = (0, count)
            }
            read = true
            let newline: Int? = chunk.withUnsafeBytes { buffer in
                memchr(buffer.baseAddress! + start, 0x0A, end - start).map { UnsafeRawPointer($0) - buffer.baseAddress! }
            }
            let stop = newline.map { $0 + 1 } ?? end
            let room = max(0, limit - line.count)
            line.append(contentsOf: chunk[start..<min(stop, start + room)])
            start = stop
            if newline != nil { return line }
        }
    }
}
