#if canImport(Glibc)
import Glibc
#endif

/// The whole of a `/proc` or `/sys` file (whose size `stat` does not tell); nil when it cannot be
/// read.
public func readProcessFile(_ path: String) -> [UInt8]? {
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { return nil }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else { return nil }
        if count == 0 { return bytes }
        bytes.append(contentsOf: chunk[..<count])
    }
}
