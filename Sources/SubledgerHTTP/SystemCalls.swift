import CEpoll
#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore

/// The outcome of a nonblocking `read(2)` or `send(2)`.
enum IOResult {
    case transferred(Int)
    /// `read` returned 0: the peer will send nothing more.
    case endOfFile
    /// `EAGAIN`: try again when epoll reports readiness.
    case wouldBlock
    case failed
}

/// The outcome of `accept4(2)` on the nonblocking listening socket.
enum AcceptResult {
    case accepted(Int32, RemoteAddress)
    /// No connection is waiting.
    case wouldBlock
    /// The connection was reset before it could be accepted; try the next one.
    case aborted
    /// Out of descriptors or memory: stop accepting for a moment, or the level-triggered
    /// listener would spin. `descriptors`: the process's or the system's table is full
    /// (`EMFILE`, `ENFILE`), which closing a connection mends; else kernel memory.
    case exhausted(descriptors: Bool)
}

/// The socket calls the server makes: nonblocking, close-on-exec, `EINTR` retried.
enum SystemCalls {
    /// Creates a nonblocking listening TCP socket: `socket`, `SO_REUSEADDR`, `bind`, `listen`.
    /// Returns the descriptor and the bound port (useful when `port` is 0).
    static func listen(host: String, port: Int, backlog: Int32) throws(HTTPServerError) -> (fd: Int32, port: Int) {
        let context = "listen on \(host.contains(":") ? "[\(host)]" : host):\(port)"
        guard (0...65535).contains(port) else { throw HTTPServerError(kind: .invalidAddress, context: context) }
        guard let address = SocketAddress(host: host, port: UInt16(port)) else {
            throw HTTPServerError(kind: .invalidAddress, context: context)
        }
        let fd = socket(address.family, Int32(SOCK_STREAM.rawValue | SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTPServerError(errno: errno, context: context) }
        do throws(HTTPServerError) {
            // Lets a restarted server bind while old connections sit in TIME_WAIT.
            var on: Int32 = 1
            guard setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) == 0,
                  address.withSockaddr({ Glibc.bind(fd, $0, $1) }) == 0,
                  Glibc.listen(fd, backlog) == 0 else {
                throw HTTPServerError(errno: errno, context: context)
            }
            var bound = SocketAddress()
            guard bound.fill({ getsockname(fd, $0, $1) }) == 0 else {
                throw HTTPServerError(errno: errno, context: context)
            }
            return (fd, bound.remoteAddress.port)
        } catch {
            Glibc.close(fd)
            throw error
        }
    }

    /// `accept4` with `SOCK_NONBLOCK | SOCK_CLOEXEC`, and `TCP_NODELAY` on the new socket: responses
    /// go out in one write each, so Nagle's algorithm would only delay them.
    static func accept(_ listener: Int32) -> AcceptResult {
        while true {
            var address = SocketAddress()
            let fd = address.fill { accept4(listener, $0, $1, Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue)) }
            if fd >= 0 {
                var on: Int32 = 1
                _ = setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
                return .accepted(fd, address.remoteAddress)
            }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            case EMFILE, ENFILE: return .exhausted(descriptors: true)
            case ENOBUFS, ENOMEM: return .exhausted(descriptors: false)
            default: return .aborted  // ECONNABORTED, EPROTO, EPERM (firewall), network errors
            }
        }
    }

    /// The bytes handed to the kernel for `fd` that the peer has not acknowledged yet, sent or
    /// not (`SIOCOUTQ`); nil if the kernel does not say.
    static func unacknowledgedBytes(_ fd: Int32) -> Int? {
        var count: Int32 = 0
        return ioctl(fd, UInt(TIOCOUTQ), &count) == 0 ? Int(count) : nil
    }

    static func read(_ fd: Int32, into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let n = Glibc.read(fd, buffer.baseAddress, buffer.count)
            if n > 0 { return .transferred(n) }
            if n == 0 { return .endOfFile }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed
            }
        }
    }

    /// `send` with `MSG_NOSIGNAL`: a peer that went away is an `EPIPE` error, never a `SIGPIPE`.
    static func send(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> IOResult {
        while true {
            let n = Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return .transferred(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed
            }
        }
    }

    /// `shutdown(SHUT_RDWR)`: ends the connection for the peer while the descriptor stays open;
    /// later sends on it fail with `EPIPE`.
    static func shutdownBoth(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// `shutdown(SHUT_WR)`: sends FIN after the queued bytes, keeping the receive side open.
    static func shutdownWrite(_ fd: Int32) {
        _ = Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// `close(2)`; errors are ignored because the descriptor is gone either way (and must not be
    /// closed again after `EINTR` on Linux).
    static func close(_ fd: Int32) {
        _ = Glibc.close(fd)
    }

    /// Writes all of `bytes` to a blocking descriptor such as stderr, retrying `EINTR` and short writes.
    static func writeAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) {
        var done = 0
        while done < bytes.count {
            let n = Glibc.write(fd, bytes.baseAddress! + done, bytes.count - done)
            if n > 0 {
                done += n
            } else if n < 0 && errno == EINTR {
                continue
            } else {
                return
            }
        }
    }
}

/// An epoll instance (`epoll_create1`), closed when released. Level-triggered: the loop reads
/// once per readiness report and comes back, which keeps one busy connection from starving others.
final class Epoll: Sendable {
    let fd: Int32

    static let readable = EPOLLIN.rawValue
    static let writable = EPOLLOUT.rawValue
    static let hangUp = EPOLLHUP.rawValue
    static let error = EPOLLERR.rawValue

    init() throws(HTTPServerError) {
        // Stored only when valid: a throwing init of a fully initialized class still runs deinit.
        let fd = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard fd >= 0 else { throw HTTPServerError(errno: errno, context: "epoll_create1") }
        self.fd = fd
    }

    deinit {
        Glibc.close(fd)
    }

    /// `EPOLL_CTL_ADD`; false when the kernel refuses (e.g. out of memory or watches).
    func add(_ descriptor: Int32, id: UInt64, events: UInt32) -> Bool {
        control(EPOLL_CTL_ADD, descriptor, id: id, events: events)
    }

    /// `EPOLL_CTL_MOD`.
    func modify(_ descriptor: Int32, id: UInt64, events: UInt32) -> Bool {
        control(EPOLL_CTL_MOD, descriptor, id: id, events: events)
    }

    /// `EPOLL_CTL_DEL`; closing a descriptor also removes it.
    func remove(_ descriptor: Int32) {
        var event = epoll_event()
        _ = epoll_ctl(fd, EPOLL_CTL_DEL, descriptor, &event)
    }

    /// `epoll_wait`; 0 events after `EINTR`. A timeout of -1 waits indefinitely.
    func wait(into events: UnsafeMutableBufferPointer<epoll_event>, timeoutMilliseconds: Int32) -> Int {
        let n = epoll_wait(fd, events.baseAddress, Int32(events.count), timeoutMilliseconds)
        if n < 0 {
            precondition(errno == EINTR, "epoll_wait failed: \(String(cString: strerror(errno)))")
            return 0
        }
        return Int(n)
    }

    private func control(_ operation: Int32, _ descriptor: Int32, id: UInt64, events: UInt32) -> Bool {
        var event = epoll_event()
        event.events = events
        event.data.u64 = id
        return epoll_ctl(fd, operation, descriptor, &event) == 0
    }
}

/// A `sockaddr_in` or `sockaddr_in6` in a `sockaddr_storage`.
struct SocketAddress {
    private var storage = sockaddr_storage()

    init() {}

    /// A numeric IPv4 or IPv6 address (brackets allowed), or `localhost` for 127.0.0.1.
    /// Nil for anything else: the server never resolves names.
    init?(host: String, port: UInt16) {
        var host = host
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { host = "127.0.0.1" }
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr = v4
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
        } else if inet_pton(AF_INET6, host, &v6) == 1 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = v6
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
        } else {
            return nil
        }
    }

    var family: Int32 { Int32(storage.ss_family) }

    /// The four bytes of an IPv4 address, also when written IPv4-mapped (`::ffff:127.0.0.1`).
    var ipv4Octets: [UInt8]? {
        withUnsafeBytes(of: storage) { raw in
            switch family {
            case AF_INET:
                return withUnsafeBytes(of: raw.load(as: sockaddr_in.self).sin_addr) { Array($0) }
            case AF_INET6:
                let bytes = withUnsafeBytes(of: raw.load(as: sockaddr_in6.self).sin6_addr) { Array($0) }
                return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF ? Array(bytes[12...]) : nil
            default:
                return nil
            }
        }
    }

    /// True for `::1`.
    var isIPv6Loopback: Bool {
        guard family == AF_INET6 else { return false }
        return withUnsafeBytes(of: storage) { raw in
            withUnsafeBytes(of: raw.load(as: sockaddr_in6.self).sin6_addr) { $0.elementsEqual(Array(repeating: 0, count: 15) + [1]) }
        }
    }

    func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        let length = socklen_t(family == AF_INET6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size)
        return withUnsafeBytes(of: storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), length) }
    }

    /// Lets a call such as `accept4` or `getsockname` fill the address.
    mutating func fill<T>(_ body: (UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> T) -> T {
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        return withUnsafeMutableBytes(of: &storage) { body($0.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length) }
    }

    /// The numeric host (`inet_ntop`) and port.
    var remoteAddress: RemoteAddress {
        withUnsafeBytes(of: storage) { raw in
            var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            switch family {
            case AF_INET:
                var address = raw.load(as: sockaddr_in.self)
                inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count))
                return RemoteAddress(host: Self.string(text), port: Int(UInt16(bigEndian: address.sin_port)))
            case AF_INET6:
                var address = raw.load(as: sockaddr_in6.self)
                inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count))
                return RemoteAddress(host: Self.string(text), port: Int(UInt16(bigEndian: address.sin6_port)))
            default:
                return RemoteAddress(host: "unknown", port: 0)
            }
        }
    }

    private static func string(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
