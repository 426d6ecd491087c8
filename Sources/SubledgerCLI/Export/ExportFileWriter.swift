#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore

/// Writes one exported file a row at a time through a fixed buffer, so memory stays the same
/// however many rows there are. CSV starts with the header row.
///
/// The rows go to a partial file beside the final one, which `publish` renames into place: an
/// export stopped by damage or a full disk leaves the previous export's file as it was, not an
/// empty or cut one a warehouse job would load. A partial file never published is removed.
final class ExportFileWriter<Row> {
    let table: ExportTable<Row>
    let format: ExportFormat
    let path: String
    let fileName: String
    private let partial: ExportFile.Partial
    private var fd: Int32 { partial.fd }
    private var buffer: [UInt8] = []
    private(set) var rows = 0
    private(set) var bytes: Int64 = 0
    static var bufferSize: Int { 1 << 20 }

    init(_ table: ExportTable<Row>, format: ExportFormat, directory: String) throws(ExportError) {
        self.table = table
        self.format = format
        fileName = table.name + "." + format.fileExtension
        path = directory + "/" + fileName
        partial = try ExportFile.Partial(for: path)
        buffer.reserveCapacity(Self.bufferSize)
        if format == .csv { append(table.columns.map { CSVRenderer.field($0.name) }.joined(separator: ",") + "\r\n") }
    }

    func write(_ row: Row) throws(ExportError) {
        switch format {
        case .csv: append(table.columns.map { $0.value(row).csvField }.joined(separator: ",") + "\r\n")
        case .jsonl: append(JSON.object(table.columns.map { ($0.name, $0.value(row).json) }).serialized() + "\n")
        }
        rows += 1
        if buffer.count >= Self.bufferSize { try flush() }
    }

    /// Writes what is buffered and syncs the partial file; `publish` then puts it in place.
    func finish() throws(ExportError) {
        try flush()
        try partial.sync()
    }

    /// Renames the finished file over the one of its name.
    func publish() throws(ExportError) {
        try partial.publish()
    }

    private func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    private func flush() throws(ExportError) {
        try ExportFile.write(buffer, to: fd, path: partial.path)
        bytes += Int64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }
}

/// The export's files, opened and written.
enum ExportFile {
    /// A file written under a hidden name beside `final` (`.NAME.partial`), renamed over it once
    /// whole, removed if it never is.
    final class Partial {
        let final: String
        let path: String
        let fd: Int32
        private var published = false

        init(for final: String) throws(ExportError) {
            self.final = final
            let slash = final.lastIndex(of: "/").map { final.index(after: $0) } ?? final.startIndex
            path = String(final[..<slash]) + "." + final[slash...] + ".partial"
            // Made afresh, never through what is at its name: `--out` may be a directory another
            // user could write first (under /tmp), and a link (or a hard link) planted there
            // would have the export write whatever it points at; a killed export's leftover,
            // narrowed below, could not be opened again.
            guard unlink(path) == 0 || errno == ENOENT else { throw ExportError(path: path, call: "remove", errno: errno) }
            // Renamed over the file it replaces, it takes that file's modes, owner and group, as
            // writing it in place kept them: an export folder narrowed to its owner (it holds
            // customer ids) must not be opened up by the next export. Owner-only until then.
            var replaced = stat()
            let replacing = lstat(final, &replaced) == 0 && replaced.st_mode & S_IFMT == S_IFREG
            fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, replacing ? 0o600 : 0o644)
            guard fd >= 0 else { throw ExportError(path: path, call: "open", errno: errno) }
            if replacing {
                _ = fchown(fd, geteuid() == 0 ? replaced.st_uid : uid_t.max, replaced.st_gid)
                fchmod(fd, replaced.st_mode & 0o777)
            }
        }

        deinit {
            close(fd)
            if !published { unlink(path) }
        }

        /// Makes what was written durable, before `publish` puts it in place.
        func sync() throws(ExportError) {
            guard fsync(fd) == 0 else { throw ExportError(path: path, call: "fsync", errno: errno) }
        }

        func publish() throws(ExportError) {
            guard rename(path, final) == 0 else { throw ExportError(path: final, call: "rename \(path) to", errno: errno) }
            published = true
        }
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
    /// The files this export had already put in place when putting the next one failed.
    var replaced: [String] = []

    var description: String {
        let reason = String(cString: strerror(errno))
        let advice = switch errno {
        case ENOSPC, EDQUOT: "free space or choose another --out"
        case ELOOP: "it is a symbolic link, which export does not write through; remove it or choose another --out"
        default: "check that --out is a writable directory"
        }
        let mixed = replaced.isEmpty ? ""
            : " (\(replaced.joined(separator: ", ")) in --out \(replaced.count == 1 ? "is" : "are") already this export's, the other files the previous export's: export again once fixed)"
        return "cannot \(call) \(path): \(reason); \(advice)\(mixed)"
    }
}
