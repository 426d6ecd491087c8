#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SubledgerHTTP
import SubledgerLedger
import SubledgerServer
import SubledgerTestSupport
import Synchronization
import Testing

/// Event streams hold their connections for as long as their clients follow: they get a share of
/// the server's connections, not all of them.
@Suite("Event streams leave room")
struct EventStreamCapacityTests {
    @Test("a burst of streams opened at once gets no more than the streams' share of connections: the rest are 503 busy with Retry-After, reads still answer, and a closed stream's place is given back")
    func streamsLeaveRoom() throws {
        let directory = TemporaryDirectory()
        _ = try Ledger.initialize(directory: directory.path, bundleId: "com.example.subledger", appAppleId: nil, environments: ["Production"],
                                  rootFiles: [], smallBusiness: false, catalogFile: nil)
        let service = LedgerServer(ledger: try Ledger(directory: directory.path), token: nil)
        var configuration = LedgerServer.httpConfiguration(host: "127.0.0.1", port: 0)
        configuration.maxConnections = 32
        configuration.maxStreams = 4
        let server = try HTTPServer(configuration: configuration, metrics: service.metrics, handler: service.router)
        defer {
            server.shutdown()
            service.feed.stop()
            service.ledger.close()
        }
        let request = "GET /v1/events/stream HTTP/1.1\r\nHost: localhost\r\n\r\n"
        // All at once, as followers reconnect after a restart.
        let clients = try (0..<12).map { _ in try Socket(port: server.port) }
        let answers = Mutex([Int: String]())
        DispatchQueue.concurrentPerform(iterations: clients.count) { index in
            let answer = (try? clients[index].ask(request)) ?? ""
            answers.withLock { $0[index] = answer }
        }
        let heads = answers.withLock { $0 }
        #expect(heads.values.count { $0.hasPrefix("HTTP/1.1 200") } == 4)
        let refused = heads.values.filter { !$0.hasPrefix("HTTP/1.1 200") }
        #expect(refused.count == 8 && refused.allSatisfy { $0.hasPrefix("HTTP/1.1 503") && $0.lowercased().contains("retry-after: 5") })
        #expect(try Socket(port: server.port).ask("GET /v1/events HTTP/1.1\r\nHost: localhost\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        let streaming = try #require(heads.first { $0.value.hasPrefix("HTTP/1.1 200") }?.key)
        clients[streaming].close()
        // The server learns the client left when its socket reads the close.
        var reopened = ""
        let deadline = Date().addingTimeInterval(30)
        repeat {
            reopened = try Socket(port: server.port).ask(request)
            if !reopened.hasPrefix("HTTP/1.1 200") { usleep(50_000) }
        } while !reopened.hasPrefix("HTTP/1.1 200") && Date() < deadline
        #expect(reopened.hasPrefix("HTTP/1.1 200"))
    }

    @Test("a stream on a ledger with no event yet still gets its heartbeat comment, so a proxy's idle timeout does not cut it and a vanished client is found")
    func emptyLedgerStreamsGetHeartbeats() throws {
        let directory = TemporaryDirectory()
        _ = try Ledger.initialize(directory: directory.path, bundleId: "com.example.subledger", appAppleId: nil, environments: ["Production"],
                                  rootFiles: [], smallBusiness: false, catalogFile: nil)
        let service = LedgerServer(ledger: try Ledger(directory: directory.path), token: nil, streamHeartbeat: .milliseconds(200))
        let server = try HTTPServer(configuration: LedgerServer.httpConfiguration(host: "127.0.0.1", port: 0), metrics: service.metrics, handler: service.router)
        defer {
            server.shutdown()
            service.feed.stop()
            service.ledger.close()
        }
        let client = try Socket(port: server.port)
        #expect(try client.ask("GET /v1/events/stream HTTP/1.1\r\nHost: localhost\r\n\r\n").hasPrefix("HTTP/1.1 200"))
        let body = try client.read(until: ": heartbeat\n\n", seconds: 5)
        #expect(body.hasSuffix(": heartbeat\n\n"), "\(body)")
    }
}

/// A blocking loopback TCP client that sends a request and reads its status line and headers.
/// `@unchecked Sendable`: each is used by one thread at a time (the burst hands one to each).
final class Socket: @unchecked Sendable {
    private var fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw CocoaError(.fileReadUnknown) }
    }

    deinit { close() }

    /// Sends `request` and returns what arrives up to the end of the response's headers.
    func ask(_ request: String) throws -> String {
        let bytes = Array(request.utf8)
        guard send(fd, bytes, bytes.count, 0) == bytes.count else { throw CocoaError(.fileWriteUnknown) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !received.ends(with: Array("\r\n\r\n".utf8)) {
            let count = recv(fd, &buffer, 1, 0)
            guard count > 0 else { break }
            received.append(buffer[0])
        }
        return String(decoding: received, as: UTF8.self)
    }

    /// What arrives until it ends with `suffix`, or `seconds` pass.
    func read(until suffix: String, seconds: Int) throws -> String {
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var byte: UInt8 = 0
        while !received.ends(with: Array(suffix.utf8)), recv(fd, &byte, 1, 0) == 1 { received.append(byte) }
        return String(decoding: received, as: UTF8.self)
    }

    func close() {
        #if canImport(Glibc)
        if fd >= 0 { Glibc.close(fd) }
        #endif
        fd = -1
    }
}

extension Array where Element: Equatable {
    fileprivate func ends(with suffix: [Element]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
