import Foundation
import Synchronization
import Testing
@testable import SubledgerHTTP

/// Streams handed out by `/stream`, for the test to feed.
private final class Streams: Sendable {
    private let streams = Mutex<[ResponseStream]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func add(_ stream: ResponseStream) {
        streams.withLock { $0.append(stream) }
        arrived.signal()
    }

    /// Waits for `count` streams in all.
    func wait(for count: Int) -> [ResponseStream] {
        while streams.withLock({ $0.count }) < count {
            guard arrived.wait(timeout: .now() + 5) == .success else { break }
        }
        return streams.withLock { $0 }
    }
}

private func streaming(_ streams: Streams) -> Router {
    var router = Router()
    router.get("/healthz") { _ in .text("ok") }
    router.get("/stream") { _ in .eventStream { streams.add($0) } }
    return router
}

@Suite("Server: streamed responses")
struct StreamingResponseTests {
    @Test("streams hold no worker: with one worker, 20 open streams and a plain request is still answered; bytes sent from another thread arrive in order; finish closes")
    func streamsHoldNoWorker() throws {
        let streams = Streams()
        try withServer(.test { $0.workerThreads = 1 }, handler: streaming(streams)) { server in
            let clients = try (0..<20).map { _ in try RawClient(port: server.port) }
            for client in clients {
                try client.send(get("/stream"))
                let head = try client.readResponse()
                #expect(head.status == 200)
                #expect(head.header("Content-Type") == "text/event-stream")
                #expect(head.header("Content-Length") == nil)
            }
            let plain = try RawClient(port: server.port)
            try plain.send(get("/healthz"))
            #expect(try plain.readResponse().text == "ok")

            let opened = streams.wait(for: 20)
            #expect(opened.count == 20)
            let done = inBackground {
                for index in 0..<200 {
                    for stream in opened { stream.send(Array("data: \(index)\n\n".utf8)) }
                }
                for stream in opened { stream.finish() }
            }
            #expect(done.wait())
            let expected = (0..<200).map { "data: \($0)\n\n" }.joined()
            for client in clients {
                #expect(String(decoding: try client.readUntilClosed(), as: UTF8.self) == expected)
            }
        }
    }

    @Test("an event stream's life is its client's, not a latency: it is left out of the duration histogram, and its end is logged with what it sent, not as aborted")
    func streamsLeftOutOfLatency() throws {
        let streams = Streams()
        let metrics = Metrics()
        let log = LogLines()
        try withServer(.test { $0.accessLog = log.accessLog }, metrics: metrics, handler: streaming(streams)) { server in
            let client = try RawClient(port: server.port)
            try client.send(get("/stream"))
            #expect(try client.readResponse().status == 200)
            let plain = try RawClient(port: server.port)
            try plain.send(get("/healthz"))
            _ = try plain.readResponse()
            let stream = streams.wait(for: 1).first
            for _ in 0..<3 { stream?.send(Array("data: x\n\n".utf8)) }
            stream?.finish()
            #expect(String(decoding: try client.readUntilClosed(), as: UTF8.self) == String(repeating: "data: x\n\n", count: 3))
            usleep(50_000)
            #expect(metrics.histogram("http_request_duration_seconds", help: "", buckets: ServerMetrics.durationBuckets).count() == 1)
        }
        #expect(log.all.contains { $0.contains("path=/stream") && $0.contains("bytes=27 ") && !$0.contains("aborted") }, "\(log.all)")
    }

    @Test("a client reading a stream slower than it is fed keeps its connection past the write timeout: it is taking bytes, though the kernel's send buffer is too full to say so")
    func slowButReadingClientIsKept() throws {
        let streams = Streams()
        try withServer(.test { $0.writeTimeout = .milliseconds(2_500) }, handler: streaming(streams)) { server in
            let client = try RawClient(port: server.port, receiveBuffer: 32 * 1024)
            try client.send(get("/stream"))
            #expect(try client.readResponse().status == 200)
            guard let stream = streams.wait(for: 1).first else { Issue.record("no stream"); return }
            // A send buffer as large as the host allows (megabytes where `wmem_max` lets it), as
            // the kernel grows one for a connection that was fast a while.
            try setSendBuffer(of: client, to: 4 << 20)
            let feeding = Locked(true)
            let fed = inBackground {
                let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 16 * 1024)
                while feeding.value, !stream.isClosed {
                    if stream.bufferedBytes < ResponseStream.bufferLimit / 2 { _ = stream.send(chunk) } else { Thread.sleep(forTimeInterval: 0.002) }
                }
            }
            // About 50 KB a second for three write timeouts: far less than it is fed.
            var received = 0
            var buffer = [UInt8](repeating: 0, count: 1024)
            let started = ContinuousClock.now
            var closedAfter: Duration?
            while ContinuousClock.now - started < .milliseconds(7_500) {
                let n = buffer.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
                if n <= 0 {
                    closedAfter = ContinuousClock.now - started
                    break
                }
                received += n
                usleep(20_000)
            }
            // The server's close alone is not seen by the client, which still has megabytes to
            // read of what the kernel holds.
            #expect(!stream.isClosed, "the server closed the stream")
            feeding.value = false
            stream.finish()
            #expect(fed.wait())
            #expect(closedAfter == nil, "closed after \(closedAfter.map { "\($0)" } ?? "") having read \(received) bytes")
            #expect(received > 50_000)
        }
    }

    @Test("a client that stops reading is dropped once a bounded amount waits for it; send then says so")
    func slowClientIsDropped() throws {
        let streams = Streams()
        try withServer(handler: streaming(streams)) { server in
            let client = try RawClient(port: server.port)
            try client.send(get("/stream"))
            _ = try client.readResponse()
            guard let stream = streams.wait(for: 1).first else { Issue.record("no stream"); return }
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 64 * 1024)
            var accepted = 0
            // The kernel's socket buffers take some; past them, at most the stream's bound waits.
            while stream.send(chunk), accepted < 256 << 20 {
                accepted += chunk.count
                if stream.bufferedBytes > ResponseStream.bufferLimit / 2 { Thread.sleep(forTimeInterval: 0.001) }
            }
            #expect(accepted < 64 << 20)
            #expect(stream.isClosed)
            #expect(stream.bufferedBytes == 0)
            _ = try client.readUntilClosed()
        }
    }
}

extension RawClient {
    /// Everything the server sends until it closes the connection.
    func readUntilClosed() throws -> [UInt8] {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n > 0 {
                received += chunk[..<n]
            } else if n == 0 || errno == ECONNRESET {
                return received
            } else if errno != EINTR {
                throw ClientError(description: "recv: errno \(errno) after \(received.count) bytes")
            }
        }
    }
}

extension StreamingResponseTests {
    @Test("a stream whose client takes nothing of what waits for it in the kernel is closed after the write timeout, though nothing waits in the server and heartbeats go on reaching the kernel (a client that vanished); a stream with nothing in flight is kept")
    func clientTakingNothingIsClosedAfterTheWriteTimeout() throws {
        let streams = Streams()
        try withServer(.test { $0.writeTimeout = .milliseconds(1_000) }, handler: streaming(streams)) { server in
            let stalled = try RawClient(port: server.port, receiveBuffer: 16 * 1024)
            try stalled.send(get("/stream"))
            #expect(try stalled.readResponse().status == 200)
            let idle = try RawClient(port: server.port)
            try idle.send(get("/stream"))
            #expect(try idle.readResponse().status == 200)
            let opened = streams.wait(for: 2)
            try #require(opened.count == 2)
            // Room in the kernel for all of it, so the server hands it over and holds nothing:
            // more than the stalled client's window, so some stays unacknowledged.
            try setSendBuffer(of: stalled, to: 1 << 20)
            #expect(opened[0].send([UInt8](repeating: UInt8(ascii: "x"), count: 192 * 1024)))
            #expect(opened[1].send(Array("data: hello\n\n".utf8)))
            let idleSince = ContinuousClock.now
            var buffer = [UInt8](repeating: 0, count: 64)
            #expect(buffer.withUnsafeMutableBytes { recv(idle.fd, $0.baseAddress, $0.count, 0) } == 13)
            // Heartbeats keep coming, and the kernel takes them: they do not put the timeout off.
            let heartbeats = inBackground {
                while !opened[0].isClosed {
                    _ = opened[0].send(Array(": hb\n\n".utf8))
                    usleep(150_000)
                }
            }
            let sent = ContinuousClock.now
            while opened[0].bufferedBytes > 0, ContinuousClock.now - sent < .milliseconds(400) { usleep(5_000) }
            #expect(!opened[0].isClosed, "handed to the kernel, still open before the timeout")
            let started = ContinuousClock.now
            while !opened[0].isClosed, ContinuousClock.now - started < .seconds(5) { usleep(20_000) }
            #expect(opened[0].isClosed)
            #expect(ContinuousClock.now - started < .seconds(2))
            #expect(heartbeats.wait())
            while ContinuousClock.now - idleSince < .milliseconds(3_200) { usleep(50_000) }
            #expect(!opened[1].isClosed, "a stream with nothing in flight is kept past three write timeouts")
            #expect(opened[1].send(Array("data: still\n\n".utf8)))
            #expect(buffer.withUnsafeMutableBytes { recv(idle.fd, $0.baseAddress, $0.count, 0) } == 13)
        }
    }

    @Test("a stream's client that takes bytes for a while and then stops is closed one write timeout (and at most an eighth more) after it stopped, not two")
    func clientThatStopsIsClosedOneWriteTimeoutAfter() throws {
        let streams = Streams()
        try withServer(.test { $0.writeTimeout = .milliseconds(2_000) }, handler: streaming(streams)) { server in
            let client = try RawClient(port: server.port, receiveBuffer: 16 * 1024)
            try client.send(get("/stream"))
            #expect(try client.readResponse().status == 200)
            guard let stream = streams.wait(for: 1).first else { Issue.record("no stream"); return }
            try setSendBuffer(of: client, to: 1 << 20)
            #expect(stream.send([UInt8](repeating: UInt8(ascii: "x"), count: 512 * 1024)))
            // Reading for a moment after the server began waiting, then not at all: checked only
            // at each write timeout, those bytes bought the client a second one.
            var buffer = [UInt8](repeating: 0, count: 1024)
            let started = ContinuousClock.now
            var stopped = started
            while ContinuousClock.now - started < .milliseconds(300) {
                if buffer.withUnsafeMutableBytes({ recv(client.fd, $0.baseAddress, $0.count, 0) }) > 0 { stopped = ContinuousClock.now }
                usleep(10_000)
            }
            while !stream.isClosed, ContinuousClock.now - stopped < .seconds(6) { usleep(20_000) }
            let closedAfter = ContinuousClock.now - stopped
            #expect(stream.isClosed)
            #expect(closedAfter > .milliseconds(1_500) && closedAfter < .milliseconds(3_000), "closed \(closedAfter) after the client stopped")
        }
    }

    @Test("a plain response larger than the kernel takes at once: a slow reader is kept past four write timeouts and gets all of it; a client that reads nothing is closed after the write timeout and gets less")
    func largeResponseToSlowAndStalledReaders() throws {
        let body = [UInt8](repeating: UInt8(ascii: "y"), count: 32 << 20)
        var router = Router()
        router.get("/big") { _ in HTTPResponse(body: body) }
        try withServer(.test { $0.writeTimeout = .milliseconds(1_000) }, handler: router) { server in
            let slow = try RawClient(port: server.port, receiveBuffer: 16 * 1024)
            let stalled = try RawClient(port: server.port, receiveBuffer: 16 * 1024)
            // Closed once answered, so that the end of the answer is the end of the connection.
            try slow.send(get("/big", "Connection: close\r\n"))
            try stalled.send(get("/big", "Connection: close\r\n"))
            var buffer = [UInt8](repeating: 0, count: 1024)
            var slowReceived = 0
            let started = ContinuousClock.now
            while ContinuousClock.now - started < .milliseconds(4_000) {
                let n = buffer.withUnsafeMutableBytes { recv(slow.fd, $0.baseAddress, $0.count, 0) }
                if n > 0 { slowReceived += n }
                usleep(20_000)
            }
            #expect(slowReceived > 50_000)
            let stalledReceived = try stalled.readUntilClosed().count
            let slowRest = try slow.readUntilClosed().count
            #expect(slowReceived + slowRest > body.count, "the slow reader got the whole response (\(slowReceived + slowRest) bytes)")
            #expect(stalledReceived < body.count, "the stalled reader was closed before it got it all")
        }
    }

    /// Sets `SO_SNDBUF` on the server's end of `client`'s connection.
    private func setSendBuffer(of client: RawClient, to bytes: Int32) throws {
        let accepted = try #require(serverSocket(connectedTo: client))
        var size = bytes
        #expect(setsockopt(accepted, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size)) == 0)
    }

    /// The server's end of `client`'s connection, found among this process's descriptors.
    private func serverSocket(connectedTo client: RawClient) -> Int32? {
        func address(_ fd: Int32, _ call: (Int32, UnsafeMutablePointer<sockaddr>, UnsafeMutablePointer<socklen_t>) -> Int32) -> sockaddr_in? {
            var address = sockaddr_in()
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let rc = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { call(fd, $0, &length) } }
            return rc == 0 && address.sin_family == sa_family_t(AF_INET) ? address : nil
        }
        guard let local = address(client.fd, getsockname), let peer = address(client.fd, getpeername) else { return nil }
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { Int32($0) }.first { fd in
            guard fd != client.fd, let mine = address(fd, getsockname), let theirs = address(fd, getpeername) else { return false }
            return mine.sin_port == peer.sin_port && theirs.sin_port == local.sin_port
        }
    }
}
