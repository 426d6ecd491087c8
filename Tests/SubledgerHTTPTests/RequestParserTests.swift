import Testing
@testable import SubledgerHTTP

/// Feeds `input` to a fresh parser in pieces of `pieceSize` bytes and collects the outcomes that
/// are not "need more data".
private func parse(_ input: String, pieceSize: Int = .max, limits: RequestParser.Limits = .testDefaults) -> [RequestParser.Outcome] {
    var parser = RequestParser(limits: limits)
    var buffer = InputBuffer()
    var outcomes: [RequestParser.Outcome] = []
    let bytes = Array(input.utf8)
    var offset = 0
    repeat {
        let end = min(bytes.count, offset + max(1, min(pieceSize, bytes.count)))
        bytes[offset..<end].withUnsafeBytes { buffer.append($0) }
        offset = end
        parsing: while true {
            let outcome = parser.parse(&buffer)
            switch outcome {
            case .needMoreData: break parsing
            case .failure: outcomes.append(outcome); return outcomes
            default: outcomes.append(outcome)
            }
        }
    } while offset < bytes.count
    return outcomes
}

extension RequestParser.Limits {
    static let testDefaults = RequestParser.Limits(maxHeaderBytes: 1024, maxHeaderCount: 10, maxBodyBytes: 100)
}

private func requests(_ outcomes: [RequestParser.Outcome]) -> [HTTPRequest] {
    outcomes.compactMap { if case .request(let request, _) = $0 { return request } else { return nil } }
}

/// The status of the single failure in `outcomes`, or nil.
private func failureStatus(_ input: String, limits: RequestParser.Limits = .testDefaults) -> Int? {
    for outcome in parse(input, limits: limits) {
        if case .failure(let error, _) = outcome { return error.status.code }
    }
    return nil
}

@Suite("Request parser")
struct RequestParserTests {
    @Test("parses method, target, version, headers and a Content-Length body")
    func simpleRequest() throws {
        let outcomes = parse("POST /v1/things?a=1&b=two+words HTTP/1.1\r\nHost: example\r\nX-Thing:  value \r\nContent-Length: 5\r\n\r\nhello")
        let request = try #require(requests(outcomes).first)
        #expect(request.method == "POST")
        #expect(request.path == "/v1/things")
        #expect(request.query["a"] == "1")
        #expect(request.query["b"] == "two words")
        #expect(request.headers["x-thing"] == "value")
        #expect(request.body == Array("hello".utf8))
        #expect(request.version == .http1_1)
    }

    @Test("gives the same requests whether bytes arrive at once or one at a time")
    func incremental() {
        let input = "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
            + "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc"
            + "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;ext=1\r\nxyz\r\n2 ; e\r\n12\r\n0\r\nTrailer: t\r\n\r\n"
        let whole = requests(parse(input))
        let trickled = requests(parse(input, pieceSize: 1))
        #expect(whole.map(\.path) == ["/a", "/b", "/c"])
        #expect(trickled.map(\.path) == whole.map(\.path))
        #expect(trickled.map(\.body) == whole.map(\.body))
        #expect(whole.last?.body == Array("xyz12".utf8))
    }

    @Test("keep-alive follows the version and the Connection header")
    func persistence() {
        func keepAlive(_ input: String) -> Bool? {
            if case .request(_, let keepAlive)? = parse(input).first { return keepAlive }
            return nil
        }
        #expect(keepAlive("GET / HTTP/1.1\r\nHost: x\r\n\r\n") == true)
        #expect(keepAlive("GET / HTTP/1.1\r\nHost: x\r\nConnection: Close\r\n\r\n") == false)
        #expect(keepAlive("GET / HTTP/1.0\r\n\r\n") == false)
        #expect(keepAlive("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n") == true)
    }

    @Test("skips empty lines before a request line")
    func leadingEmptyLines() {
        #expect(requests(parse("\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n")).count == 1)
    }

    @Test("asks for 100-continue only when the client has not started the body")
    func expectContinue() {
        let head = "PUT / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n"
        var parser = RequestParser(limits: .testDefaults)
        var buffer = InputBuffer()
        Array(head.utf8).withUnsafeBytes { buffer.append($0) }
        guard case .continueExpected = parser.parse(&buffer) else { Issue.record("expected 100-continue"); return }
        guard case .needMoreData = parser.parse(&buffer) else { Issue.record("expected to wait for the body"); return }
        Array("ok".utf8).withUnsafeBytes { buffer.append($0) }
        guard case .request(let request, _) = parser.parse(&buffer) else { Issue.record("expected the request"); return }
        #expect(request.body == Array("ok".utf8))
        #expect(requests(parse(head + "ok")).count == 1)
        #expect(failureStatus("PUT / HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\n\r\n") == 417)
    }

    @Test("rejects malformed request lines with 400", arguments: [
        "GET  / HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.1 \r\nHost: x\r\n\r\n",
        "G(T / HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET ftp://example.com/ HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET http:///path HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET example.com/ HTTP/1.1\r\nHost: x\r\n\r\n",
        "OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /a#fragment HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /a\u{7F} HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET / HTTP/1.x\r\nHost: x\r\n\r\n",
        "GET / http/1.1\r\nHost: x\r\n\r\n",
        "GET /%zz HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /?a=%2 HTTP/1.1\r\nHost: x\r\n\r\n",
        "hello\r\n\r\n",
    ])
    func badRequestLine(_ input: String) {
        #expect(failureStatus(input) == 400)
    }

    @Test("takes an absolute-form target as its path and query, as RFC 9112 requires of a server")
    func absoluteForm() throws {
        for (target, path, query) in [
            ("http://example.com/v1/head?a=1", "/v1/head", "a=1"), ("HTTPS://example.com:8443/healthz", "/healthz", ""),
            ("http://example.com", "/", ""), ("http://example.com?a=1", "/", "a=1"),
        ] {
            let request = try #require(requests(parse("GET \(target) HTTP/1.1\r\nHost: x\r\n\r\n")).first, "\(target)")
            #expect(request.path == path && request.rawQuery == query, "\(target)")
        }
    }

    @Test("answers an unsupported HTTP version with 505")
    func unsupportedVersion() {
        #expect(failureStatus("GET / HTTP/2.0\r\nHost: x\r\n\r\n") == 505)
    }

    @Test("rejects malformed header sections with 400", arguments: [
        "GET / HTTP/1.1\r\nHost: x\r\nX-Folded: a\r\n  continued\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Space : a\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nNo colon\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\n: empty name\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Bare: a\rb\r\n\r\n",
        "GET / HTTP/1.1\nHost: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Nul: a\u{0}b\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: x\r\nX-Ctl: a\u{1}b\r\n\r\n",
        "GET / HTTP/1.1\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n",
        // Not a host (RFC 9112, 3.2): a port that is not a number, text after an IP literal, a path.
        "GET / HTTP/1.1\r\nHost: localhost:abc\r\n\r\n", "GET / HTTP/1.1\r\nHost: [::1]evil\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: localhost/evil\r\n\r\n", "GET / HTTP/1.1\r\nHost: a,b\r\n\r\n", "GET / HTTP/1.1\r\nHost: [::1\r\n\r\n",
    ])
    func badHeaders(_ input: String) {
        #expect(failureStatus(input) == 400)
    }

    @Test("takes every Host a client may send", arguments: ["localhost", "localhost:8080", "127.0.0.1:80", "[::1]", "[::1]:8080", "LOCALHOST", "", "xn--bcher-kva.example", "a_b.example:"])
    func goodHosts(_ host: String) {
        #expect(requests(parse("GET / HTTP/1.1\r\nHost: \(host)\r\n\r\n")).count == 1, "\(host)")
    }

    @Test("rejects ambiguous body framing with 400", arguments: [
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\nabcd",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3, 4\r\n\r\nabcd",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0x10\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n",
        "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3 junk\r\nabc\r\n0\r\n\r\n",
        "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3 \r\nabc\r\n0\r\n\r\n",
    ])
    func ambiguousFraming(_ input: String) {
        #expect(failureStatus(input) == 400)
    }

    @Test("accepts repeated Content-Length lines that agree")
    func repeatedContentLength() {
        let request = requests(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 2, 2\r\n\r\nok")).first
        #expect(request?.body == Array("ok".utf8))
    }

    @Test("answers transfer codings other than chunked with 501")
    func unsupportedCoding() {
        #expect(failureStatus("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n") == 501)
    }

    @Test("answers a body over the limit with 413 as soon as its size is known")
    func bodyTooLarge() {
        // Content-Length: known from the head, before any body byte.
        #expect(failureStatus("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 101\r\n\r\n") == 413)
        #expect(failureStatus("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n") == 413)
        // Chunked: the chunk that would cross the limit, before its data.
        #expect(failureStatus("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n32\r\n" + String(repeating: "a", count: 50) + "\r\n33\r\n") == 413)
        #expect(failureStatus("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFFFFFF\r\n") == 413)
        #expect(requests(parse("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n" + String(repeating: "a", count: 100))).count == 1)
    }

    @Test("answers a head over the byte or line limit with 431")
    func headersTooLarge() {
        let limits = RequestParser.Limits(maxHeaderBytes: 200, maxHeaderCount: 3, maxBodyBytes: 100)
        #expect(failureStatus("GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + String(repeating: "a", count: 300), limits: limits) == 431)
        #expect(failureStatus("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", limits: limits) == 431)
        #expect(failureStatus("GET / HTTP/1.1\r\nHost: x\r\nA: 1\r\nB: 2\r\n\r\n", limits: limits) == nil)
        let trailers = (0..<5).map { "T\($0): v\r\n" }.joined()
        #expect(failureStatus("POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\(trailers)\r\n", limits: limits) == 431)
    }

    @Test("answers a request line longer than the whole head may be with 414, however the bytes arrive")
    func targetTooLong() {
        let limits = RequestParser.Limits(maxHeaderBytes: 200, maxHeaderCount: 3, maxBodyBytes: 100)
        let input = "GET /v1/events?type=" + String(repeating: "a", count: 300) + " HTTP/1.1\r\nHost: x\r\n\r\n"
        for pieceSize in [Int.max, 7] {
            let statuses = parse(input, pieceSize: pieceSize, limits: limits).compactMap { outcome -> Int? in
                if case .failure(let error, _) = outcome { return error.status.code } else { return nil }
            }
            #expect(statuses == [414], "pieces of \(pieceSize)")
        }
    }

    /// Found by Tools/fuzz: with the whole input buffered the parser read one byte past the limit
    /// (400, bare CR); arriving byte by byte it stopped at the limit (431).
    @Test("answers a CR in the last byte of the header limit the same however the bytes arrive")
    func crAtHeaderLimit() {
        let limits = RequestParser.Limits(maxHeaderBytes: 64, maxHeaderCount: 10, maxBodyBytes: 100)
        let start = "GET / HTTP/1.1\r\nHost: x\r\nX-Pad: "
        let input = start + String(repeating: "p", count: 63 - start.utf8.count) + "\rzz\r\n\r\n"
        let statuses = [Int.max, 1].map { pieceSize in
            parse(input, pieceSize: pieceSize, limits: limits).compactMap { outcome -> Int? in
                if case .failure(let error, _) = outcome { return error.status.code } else { return nil }
            }
        }
        #expect(statuses == [[431], [431]])
    }
}
