import Foundation
import Synchronization
@testable import SubledgerHTTP

/// A failure of the test client; every wait is bounded by the socket timeouts.
struct ClientError: Error, CustomStringConvertible {
    let description: String
}

/// A response as the raw client read it.
struct RawResponse {
    let status: Int
    let headers: [(name: String, value: String)]
    let body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The `error` code of a JSON error body.
    var errorCode: String? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] else { return nil }
        return object["error"] as? String
    }
}

/// A blocking TCP client on 127.0.0.1 speaking raw bytes, with send and receive timeouts so a
/// misbehaving server fails a test instead of hanging it.
final class RawClient {
    let fd: Int32
    private var buffer: [UInt8] = []

    /// `receiveBuffer`: `SO_RCVBUF` set before connecting, which fixes the window the client offers.
    init(port: Int, timeoutSeconds: Int = 5, receiveBuffer: Int32? = nil) throws {
        // The descriptor is stored only once connected: a class whose init throws after every
        // property is set still runs deinit, which would close the number a second time, after
        // another thread may have been given it.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket: errno \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if var size = receiveBuffer { setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size)) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            let code = errno
            Glibc.close(fd)
            throw ClientError(description: "connect: errno \(code)")
        }
        self.fd = fd
    }

    private var isOpen = true

    deinit {
        close()
    }

    func close() {
        if isOpen { Glibc.close(fd) }
        isOpen = false
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    func send(_ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw ClientError(description: "send: errno \(errno)") }
            sent += n
        }
    }

    func shutdownWrite() {
        shutdown(fd, Int32(SHUT_WR))
    }

    /// The client's own port.
    var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Closes with a reset (`SO_LINGER` of zero) rather than a FIN: the server sees an error on
    /// the socket at once, even while it is not reading it.
    func reset() {
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        setsockopt(fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close()
    }

    /// Reads one response; its body by Content-Length (none for HEAD, 1xx, 204 and 304).
    func readResponse(head: Bool = false) throws -> RawResponse {
        let headEnd = try fill(until: { buffer in Self.find([13, 10, 13, 10], in: buffer).map { $0 + 4 } })
        let headText = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd)
        var lines = headText.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0] == "HTTP/1.1", let status = Int(statusLine[1]) else {
            throw ClientError(description: "malformed status line in \(headText.debugDescription)")
        }
        let headers = lines.map { line -> (name: String, value: String) in
            let colon = line.firstIndex(of: ":")!
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        let response = RawResponse(status: status, headers: headers, body: [])
        let length = head || status < 200 || status == 204 || status == 304 ? 0 : Int(response.header("Content-Length") ?? "0")!
        _ = try fill(until: { $0.count >= length ? length : nil })
        let body = Array(buffer[..<length])
        buffer.removeFirst(length)
        return RawResponse(status: status, headers: headers, body: body)
    }

    /// True when the server closed the connection: nothing more is buffered and the next read
    /// reports end of file or a reset.
    func isClosedByServer() throws -> Bool {
        guard buffer.isEmpty else { return false }
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, 0)
        if n == 0 || (n < 0 && errno == ECONNRESET) { return true }
        if n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { throw ClientError(description: "timed out waiting for the close") }
        buffer.append(byte)
        return false
    }

    private func fill(until done: ([UInt8]) -> Int?) throws -> Int {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if let result = done(buffer) { return result }
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                buffer.append(contentsOf: chunk[..<n])
            } else if n == 0 {
                throw ClientError(description: "the server closed the connection; buffered: \(String(decoding: buffer, as: UTF8.self).debugDescription)")
            } else if errno == EAGAIN || errno == EWOULDBLOCK {
                throw ClientError(description: "timed out; buffered: \(String(decoding: buffer, as: UTF8.self).debugDescription)")
            } else if errno != EINTR {
                throw ClientError(description: "recv: errno \(errno)")
            }
        }
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}

/// `GET path` with a Host header, plus `extra` header lines.
func get(_ path: String, _ extra: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: test\r\n\(extra)\r\n"
}

extension HTTPServer.Configuration {
    /// An ephemeral loopback port, no access log, short timeouts.
    static func test(_ change: (inout HTTPServer.Configuration) -> Void = { _ in }) -> HTTPServer.Configuration {
        var configuration = HTTPServer.Configuration(host: "127.0.0.1", port: 0, readTimeout: .seconds(5),
                                                     idleTimeout: .seconds(5), writeTimeout: .seconds(5),
                                                     shutdownTimeout: .seconds(5), workerThreads: 4, accessLog: .custom { _ in })
        change(&configuration)
        return configuration
    }
}

/// Answers `<METHOD> <path> query=<names> body=<body>` as text.
let echo = ClosureHandler { request in
    let query = request.query.items.map { "\($0.name)=\($0.value)" }.joined(separator: "&")
    return .text("\(request.method) \(request.path) query=\(query) body=\(String(decoding: request.body, as: UTF8.self))")
}

/// Runs `body` with a started server and shuts it down afterwards.
func withServer<T>(_ configuration: HTTPServer.Configuration = .test(), metrics: Metrics = Metrics(),
                   handler: some HTTPHandler = echo, _ body: (HTTPServer) throws -> T) throws -> T {
    let server = try HTTPServer(configuration: configuration, metrics: metrics, handler: handler)
    defer { server.shutdown() }
    return try body(server)
}

/// A one-shot gate a handler can wait on, opened by the test.
final class Gate: Sendable {
    private let semaphore = DispatchSemaphore(value: 0)

    func open() { semaphore.signal() }

    /// Waits at most `seconds`; true when opened.
    @discardableResult
    func wait(seconds: Double = 5) -> Bool {
        semaphore.wait(timeout: .now() + seconds) == .success
    }
}

/// Collects access log lines.
final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    var accessLog: AccessLog {
        .custom { line in self.lines.withLock { $0.append(line) } }
    }

    var all: [String] { lines.withLock { $0 } }
}

/// Runs `body` on a new thread; the returned gate opens when it has finished.
func inBackground(_ body: @escaping @Sendable () -> Void) -> Gate {
    let done = Gate()
    Thread.detachNewThread {
        body()
        done.open()
    }
    return done
}

/// A value shared with another thread.
final class Locked<Value: Sendable>: Sendable {
    private let storage: Mutex<Value>

    init(_ value: Value) {
        storage = Mutex(value)
    }

    var value: Value {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
