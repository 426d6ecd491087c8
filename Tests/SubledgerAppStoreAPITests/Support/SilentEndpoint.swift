import Foundation

/// A loopback port that takes connections (the kernel's backlog) and never answers: an API that
/// hangs. Closed when released.
final class SilentEndpoint {
    let descriptor: Int32
    let port: Int
    var baseURL: String { "https://127.0.0.1:\(port)" }

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, $0, &length) == 0 }
        }
        guard bound else { throw StandInError(message: "cannot listen on loopback: \(String(cString: strerror(errno)))") }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    deinit {
        close(descriptor)
    }
}
