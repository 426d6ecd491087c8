#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import SubledgerCore

/// An open file, closed on deinit (`open(2)`, `write(2)`, `read(2)`, `close(2)`).
final class OpenFile {
    let path: String
    private let descriptor: Int32

    init(path: String, flags: Int32) throws(SimulatorError) {
        self.path = path
        let descriptor = open(path, flags | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Self.failure("open", path) }
        self.descriptor = descriptor
    }

    static func creating(_ path: String) throws(SimulatorError) -> OpenFile {
        try OpenFile(path: path, flags: O_WRONLY | O_CREAT | O_TRUNC)
    }

    static func appending(_ path: String) throws(SimulatorError) -> OpenFile {
        try OpenFile(path: path, flags: O_WRONLY | O_CREAT | O_APPEND)
    }

    deinit {
        close(descriptor)
    }

    func write(_ bytes: [UInt8]) throws(SimulatorError) {
        var failure: SimulatorError?
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = posixWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = Self.failure("write", path)
                    return
                }
                offset += written
            }
        }
        if let failure { throw failure }
    }

    /// Passes the file from its current offset to `body` in chunks of up to 1 MiB.
    func forEachChunk(_ body: ([UInt8]) throws(SimulatorError) -> Void) throws(SimulatorError) {
        var chunk = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw Self.failure("read", path)
            }
            if count == 0 { return }
            try body(Array(chunk[..<count]))
        }
    }

    /// The whole file from its current offset.
    func readAll() throws(SimulatorError) -> [UInt8] {
        var bytes: [UInt8] = []
        try forEachChunk { chunk throws(SimulatorError) in bytes.append(contentsOf: chunk) }
        return bytes
    }

    static func failure(_ call: String, _ path: String) -> SimulatorError {
        SimulatorError(.io, "\(call) \(path): \(String(cString: strerror(errno)))")
    }
}

private func posixWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}

/// Appends to a file through a 1 MiB buffer.
struct BufferedWriter {
    private let file: OpenFile
    private var buffer: [UInt8] = []
    private static let capacity = 1 << 20

    init(creating path: String) throws(SimulatorError) {
        file = try OpenFile.creating(path)
        buffer.reserveCapacity(Self.capacity)
    }

    mutating func append(_ bytes: [UInt8]) throws(SimulatorError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.capacity { try flush() }
    }

    mutating func append(_ text: String) throws(SimulatorError) {
        try append(Array(text.utf8))
    }

    mutating func flush() throws(SimulatorError) {
        guard !buffer.isEmpty else { return }
        try file.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}

enum FileSystem {
    /// Creates `path` and its missing parents unless it already is a directory.
    static func makeDirectory(_ path: String) throws(SimulatorError) {
        do { try DirectoryPath.create(path) } catch { throw SimulatorError(.io, error.description) }
    }

    static func write(_ bytes: [UInt8], to path: String) throws(SimulatorError) {
        try OpenFile.creating(path).write(bytes)
    }

    /// Removes a file; a missing one is fine.
    static func remove(_ path: String) {
        unlink(path)
    }

    static func removeDirectory(_ path: String) {
        rmdir(path)
    }
}
