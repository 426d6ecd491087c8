#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore

/// Writes one exported file a row at a time through a fixed buffer, so memory stays the same
/// however many rows there are. CSV starts with the header row.
final class ExportFileWriter<Row> {
    let table: ExportTable<Row>
    let format: ExportFormat
    let path: String
    let fileName: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var rows = 0
    private(set) var bytes: Int64 = 0
    static var bufferSize: Int { 1 << 20 }

    init(_ table: ExportTable<Row>, format: ExportFormat, directory: String) throws(ExportError) {
        self.table = table
        self.format = format
        fileName = table.name + "." + format.fileExtension
        path = directory + "/" + fileName
        fd = try ExportFile.create(path)
        buffer.reserveCapacity(Self.bufferSize)
        if format == .csv { append(table.columns.map { CSVRenderer.field($0.name) }.joined(separator: ",") + "\r\n") }
    }

    deinit { close(fd) }

    func write(_ row: Row) throws(ExportError) {
        switch format {
        case .csv: append(table.columns.map { $0.value(row).csvField }.joined(separator: ",") + "\r\n")
        case .jsonl: append(JSON.object(table.columns.map { ($0.name, $0.value(row).json) }).serialized() + "\n")
        }
        rows += 1
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Writes what is buffered and syncs the file.
    func finish() throws(ExportError) {
        try flush()
        guard fsync(fd) == 0 else { throw ExportError(path: path, call: "fsync", errno: errno) }
    }

    private func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    private func flush() throws(ExportError) {
        try ExportFile.write(buffer, to: fd, path: path)
        bytes += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// The export's files, opened and written.
enum ExportFile {
    /// Opens `path` for writing, emptied, never through a symbolic link: `--out` may be a
    /// directory another user could create first (under /tmp), and a link planted there named
    /// like an export file would have the export overwrite whatever it points at.
    static func create(_ path: String) throws(ExportError) -> Int32 {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o644)
        guard fd >= 0 else { throw ExportError(path: path, call: "open", errno: errno) }
        return fd
    }

    static func write(_ bytes: [UInt8], to fd: Int32, path: String) throws(ExportError) {
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ExportError(path: path, call: "write", errno: errno)
            }
            done += n
        }
    }
}

/// An export file that could not be written, with what to do about it.
struct ExportError: Error, CustomStringConvertible {
    var path: String
    var call: String
    var errno: Int32

    var description: String {
        let reason = String(cString: strerror(errno))
        let advice = switch errno {
        case ENOSPC, EDQUOT: "free space or choose another --out"
        case ELOOP: "it is a symbolic link, which export does not write through; remove it or choose another --out"
        default: "check that --out is a writable directory"
        }
        return "cannot \(call) \(path): \(reason); \(advice)"
    }
}
