import Foundation
import Synchronization

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

    /// Whether a client has connected (its connection waits in the backlog, never accepted)
    /// within `milliseconds`.
    func awaitClient(milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) == 1
    }

    deinit {
        close(descriptor)
    }
}

/// A loopback port that resets every connection once the client has sent its first bytes (a
/// TLS ClientHello): a link dropped during the handshake. Counts the connections it reset.
final class ResettingEndpoint: Sendable {
    let port: Int
    private let descriptor: Int32
    private let reset = Count()
    var baseURL: String { "https://127.0.0.1:\(port)" }
    var connections: Int { reset.value.withLock { $0 } }

    private final class Count: Sendable {
        let value = Mutex(0)
    }

    init() throws {
        let endpoint = try SilentEndpoint()
        descriptor = dup(endpoint.descriptor)
        port = endpoint.port
        let (descriptor, reset) = (descriptor, reset)
        Thread.detachNewThread {
            while true {
                let connection = accept(descriptor, nil, nil)
                guard connection >= 0 else {
                    close(descriptor)
                    return
                }
                var hello = [UInt8](repeating: 0, count: 16)
                _ = recv(connection, &hello, hello.count, 0)
                var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                setsockopt(connection, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                reset.value.withLock { $0 += 1 }
                close(connection)
            }
        }
    }

    /// Wakes the accepting thread, which closes the descriptor once `accept` fails: closed here,
    /// its number could be reused before that thread's next `accept`.
    deinit {
        shutdown(descriptor, Int32(SHUT_RDWR))
    }
}
