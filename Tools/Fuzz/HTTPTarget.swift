import SubledgerHTTP

/// The server's HTTP/1.1 request parser (`RequestParser` over an `InputBuffer`, as each
/// connection uses them). Every input is parsed twice, all at once and split into random reads
/// (one byte at a time, at random points, at line ends), and checked beyond "no crash":
/// - the parser never consumes more bytes than it was given, and never sits on more unconsumed
///   bytes than its limits allow without answering;
/// - how the bytes are split never changes the requests or the error (a proxy and this server
///   must agree on where each request ends);
/// - every completed request was framed as its head says: its bytes are the head (within the
///   header limits, lines ending in CRLF) followed by exactly `Content-Length` body bytes, or a
///   chunked body that an independent decoder reads to the same bytes; never both framings;
/// - routed with the server's patterns (percent-decoded path segments), a request is answered
///   by its handler or with 400, 404 or 405.
struct HTTPTarget: FuzzTarget {
    static let name = "http"
    let corpus: [[UInt8]]
    private(set) var tally = Tally()
    /// The routes `subledger serve` has, each handler echoing what it matched.
    private let router: Router = {
        var router = Router()
        router.post("/v1/notifications/appstore") { _ in .text("notification") }
        router.get("/") { _ in .text("dashboard") }
        router.get("/healthz") { _ in .text("ok") }
        router.get("/metrics") { _ in .text("metrics") }
        for pattern in ["/v1/customers/{id}", "/v1/customers/{id}/history", "/v1/reports/{name}", "/v1/reports/mrr"] {
            router.get(pattern) { request in .text(request.pathParameters.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined()) }
        }
        return router
    }()

    /// The server's defaults, small limits that inputs hit often, and the smallest allowed.
    static let defaultLimits = RequestParser.Limits(maxHeaderBytes: 16 * 1024, maxHeaderCount: 100, maxBodyBytes: 1024 * 1024)
    static let smallLimits = RequestParser.Limits(maxHeaderBytes: 256, maxHeaderCount: 8, maxBodyBytes: 64)
    static let tinyLimits = RequestParser.Limits(maxHeaderBytes: 64, maxHeaderCount: 1, maxBodyBytes: 0)
    /// The longest chunk-size line the parser waits for (RequestParser.maxChunkSizeLine).
    static let chunkSizeLineLimit = 4096

    init() {
        let get = "GET /v1/customers/cust%2D42/history?from=2024-01-01&to=2024-12-31&q=a%20b+c HTTP/1.1\r\nHost: localhost:8080\r\nAuthorization: Bearer s3cr3t\r\nAccept: application/json\r\n\r\n"
        let json = #"{"signedPayload":"eyJhbGciOiJFUzI1NiJ9.eyJhIjoxfQ.c2ln"}"#
        let post = "POST /v1/notifications/appstore HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: \(json.utf8.count)\r\n\r\n\(json)"
        let chunked = "POST /v1/notifications/appstore HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n7;name=value\r\n, world\r\n0\r\nX-Checksum: abc\r\n\r\n"
        let close = "GET /metrics HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
        var seeds = [
            get, post, chunked, close,
            get + post + chunked + close,  // pipelined
            "GET /healthz HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /v1/reports/mrr?from=2024-01 HTTP/1.0\r\n\r\n",
            "POST /v1/notifications/appstore HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\nbody",
            "\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n",
            "GET /v1/customers/a%2Fb/history?limit=10&x HTTP/1.1\r\nHost: h\r\n\r\n",
            "POST /v1/echo HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\n\r\nabc",
            "PUT /v1/reports/mrr HTTP/1.1\r\nHost: h\r\ncontent-length: 0\r\n\r\n",
        ].map { Array($0.utf8) }
        // At and one past each limit of the small profile, and the header limits of the defaults.
        for limits in [Self.smallLimits, Self.defaultLimits] {
            for extra in [0, 1] {
                seeds.append(Self.head(headerCount: limits.maxHeaderCount + extra))
                seeds.append(Self.head(size: limits.maxHeaderBytes + extra))
            }
        }
        for size in [Self.smallLimits.maxBodyBytes, Self.smallLimits.maxBodyBytes + 1] {
            seeds.append(Array("POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: \(size)\r\n\r\n".utf8) + Array(repeating: UInt8(ascii: "x"), count: size))
            seeds.append(Array("POST /b HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\(String(size - 1, radix: 16))\r\n".utf8)
                + Array(repeating: UInt8(ascii: "y"), count: size - 1) + Array("\r\n1\r\nz\r\n0\r\n\r\n".utf8))
        }
        corpus = seeds
    }

    /// A GET whose head has `headerCount` header lines (Host included).
    private static func head(headerCount: Int) -> [UInt8] {
        Array(("GET /many HTTP/1.1\r\nHost: h\r\n" + (1..<headerCount).map { "X-H\($0): v\r\n" }.joined() + "\r\n").utf8)
    }

    /// A GET whose head (request line through the blank line) is exactly `size` bytes.
    private static func head(size: Int) -> [UInt8] {
        let start = "GET /long HTTP/1.1\r\nHost: h\r\nX-Pad: "
        return Array((start + String(repeating: "p", count: max(0, size - start.utf8.count - 4)) + "\r\n\r\n").utf8)
    }

    private static let headerLines = [
        "Content-Length: 0", "Content-Length: 5", "Content-Length: 18446744073709551616", "Content-Length: 99999999999999999999999999",
        "Content-Length: -1", "Content-Length: 1, 2", "Content-Length: 5, 5", "Content-Length: +5", "Content-Length: 0x10", "Content-Length:",
        "Transfer-Encoding: chunked", "Transfer-Encoding: gzip, chunked", "Transfer-Encoding: chunked, gzip", "Transfer-Encoding: identity",
        "Transfer-Encoding: CHUNKED", "Transfer-Encoding: chunked, chunked", "Host: other", "Host: a b", "Host: a,b", "Connection: close",
        "Connection: keep-alive, close", "Connection: Keep-Alive", "Expect: 100-continue", "Expect: something", " folded", "\tfolded",
        "Bad Name: x", "X-Empty:", ":novalue", "X-Ctl: a\u{01}b", "X-Obs: \u{FF}\u{FE}", "X-Space : x", "X-Del: a\u{7F}",
    ].map { Array($0.utf8) }

    private static let numbers = [
        "0", "1", "00000000000000000005", "40", "41", "3f", "10000", "4294967296", "7fffffffffffffff", "9223372036854775807",
        "9223372036854775808", "18446744073709551616", "ffffffffffffffff", "fffffffffffffffff0",
    ].map { Array($0.utf8) }

    /// Byte edits plus HTTP-shaped ones: lines duplicated, dropped or inserted, header values
    /// and numbers (lengths, chunk sizes) replaced, line ends broken, requests pipelined.
    func generate(_ random: inout Random) -> [UInt8] {
        var bytes = random.element(corpus)
        for _ in 0...random.below(3) {
            let lines = Self.lineRanges(bytes)
            let line = lines.isEmpty ? 0..<0 : random.element(lines)
            switch random.below(10) {
            case 0: bytes.insert(contentsOf: bytes[line], at: line.lowerBound)
            case 1: bytes.removeSubrange(line)
            case 2:
                let at = lines.count > 1 ? lines[random.below(lines.count - 1) + 1].lowerBound : bytes.count
                bytes.insert(contentsOf: random.element(Self.headerLines) + [0x0D, 0x0A], at: at)
            case 3:
                if let colon = bytes[line].firstIndex(of: UInt8(ascii: ":")) {
                    bytes.replaceSubrange((colon + 1)..<max(colon + 1, line.upperBound - 2), with: Array(" ".utf8) + random.element(Self.numbers))
                }
            case 4:
                // A run of hex digits (a length, a chunk size, part of a value) becomes a telling number.
                let start = random.below(bytes.count + 1)
                if let first = bytes[start...].firstIndex(where: { Self.isHexDigit($0) }) {
                    let end = bytes[first...].firstIndex(where: { !Self.isHexDigit($0) }) ?? bytes.count
                    bytes.replaceSubrange(first..<end, with: random.element(Self.numbers))
                }
            case 5:
                if bytes[line].suffix(2).elementsEqual([0x0D, 0x0A]) {
                    let replacement: [UInt8] = random.element([[0x0A], [0x0D], [0x0D, 0x0D, 0x0A], [], [0x0A, 0x0D]])
                    bytes.replaceSubrange((line.upperBound - 2)..<line.upperBound, with: replacement)
                }
            case 6: bytes += random.element(corpus)
            case 7:
                let at = lines.count > 1 ? lines[1].lowerBound : bytes.count
                bytes.insert(contentsOf: Array("X-Pad: ".utf8) + Array(repeating: UInt8(ascii: "q"), count: random.below(20_000)) + [0x0D, 0x0A], at: at)
            default: bytes = mutate(bytes, &random)
            }
        }
        return bytes
    }

    mutating func feed(_ input: [UInt8], _ random: inout Random) throws(InvariantViolation) {
        let limits = random.chance(10) ? Self.tinyLimits : random.below(10) < 4 ? Self.defaultLimits : Self.smallLimits
        let whole = try parse(input, reads: [], limits)
        let reads = Self.readBoundaries(input, &random)
        let split = try parse(input, reads: reads, limits)
        guard whole == split else {
            throw InvariantViolation("""
                the outcome depends on how the bytes arrive (limits \(limits)):
                  at once:  \(whole)
                  in reads ending at \(reads): \(split)
                """)
        }
        tally.count("requests", whole.requests.count)
        if let failure = whole.failure {
            tally.count("inputs answered \(failure.status.code)")
        } else if whole.unconsumed > 0 {
            tally.count("inputs left waiting for more bytes")
        } else {
            tally.count("inputs fully parsed")
        }
    }

    /// What a connection would see: the requests, then an error or the bytes left waiting.
    struct Transcript: Equatable, CustomStringConvertible {
        struct Request: Equatable {
            var method: String
            var target: String
            var version: HTTPVersion
            var headers: HTTPHeaders
            var body: [UInt8]
            var keepAlive: Bool
        }

        var requests: [Request] = []
        var failure: HTTPError?
        /// Whether the failure came with the request head it was about.
        var failureNamedRequest = false
        /// Bytes received but not consumed at the end (not compared after a failure).
        var unconsumed = 0

        var description: String {
            let listed = requests.map { "\($0.method) \($0.target) \($0.version) \($0.headers.count) headers, \($0.body.count)-byte body" }
            return "[\(listed.joined(separator: "; "))] then " + (failure.map { "\($0)" } ?? "\(unconsumed) bytes waiting")
        }
    }

    /// Appends `input` to one connection's buffer in reads ending at `reads` (then the rest),
    /// parsing after each read as the event loop does.
    private func parse(_ input: [UInt8], reads: [Int], _ limits: RequestParser.Limits) throws(InvariantViolation) -> Transcript {
        var parser = RequestParser(limits: limits)
        var buffer = InputBuffer()
        var transcript = Transcript()
        var received = 0
        var consumed = 0
        var requestStart = 0
        let heldLimit = max(limits.maxHeaderBytes, limits.maxBodyBytes, Self.chunkSizeLineLimit)
        for end in reads + [input.count] where end > received {
            input[received..<end].withUnsafeBytes { buffer.append($0) }
            received = end
            parsing: while true {
                let before = buffer.count
                let outcome = parser.parse(&buffer)
                let used = before - buffer.count
                guard used >= 0, consumed + used <= received else {
                    throw InvariantViolation("the parser consumed \(used) bytes with \(before) in the buffer")
                }
                consumed += used
                switch outcome {
                case .needMoreData, .continueExpected:
                    guard buffer.count < heldLimit else {
                        throw InvariantViolation("the parser holds \(buffer.count) unconsumed bytes without answering (limits \(limits))")
                    }
                    break parsing
                case .request(let request, let keepAlive):
                    try check(request, bytes: input[requestStart..<consumed], limits)
                    try route(request)
                    transcript.requests.append(Transcript.Request(method: request.method, target: request.target, version: request.version,
                                                                  headers: request.headers, body: request.body, keepAlive: keepAlive))
                    requestStart = consumed
                case .failure(let error, let request):
                    transcript.failure = error
                    transcript.failureNamedRequest = request != nil
                    return transcript
                }
            }
        }
        transcript.unconsumed = buffer.count
        return transcript
    }

    /// `bytes` are exactly what the parser consumed for `request`.
    private func check(_ request: HTTPRequest, bytes: ArraySlice<UInt8>, _ limits: RequestParser.Limits) throws(InvariantViolation) {
        var bytes = bytes
        while bytes.starts(with: [0x0D, 0x0A]) { bytes.removeFirst(2) }  // empty lines before a request are skipped
        guard let blank = Self.firstIndex(of: [0x0D, 0x0A, 0x0D, 0x0A], in: bytes) else {
            throw InvariantViolation("a request was parsed from bytes without a blank line ending its head")
        }
        let head = bytes[..<(blank + 4)]
        let body = bytes[(blank + 4)...]
        guard head.count <= limits.maxHeaderBytes, request.headers.count <= limits.maxHeaderCount, request.body.count <= limits.maxBodyBytes else {
            throw InvariantViolation("a request exceeds the limits \(limits): \(head.count)-byte head, \(request.headers.count) headers, \(request.body.count)-byte body")
        }
        for index in head.indices {
            let bareLF = head[index] == 0x0A && (index == head.startIndex || head[index - 1] != 0x0D)
            let bareCR = head[index] == 0x0D && (index + 1 == head.endIndex || head[index + 1] != 0x0A)
            guard !bareLF && !bareCR else { throw InvariantViolation("a request head with a bare CR or LF was accepted") }
        }
        guard head.starts(with: Array("\(request.method) \(request.target) \(request.version)\r\n".utf8)), request.target.hasPrefix("/") else {
            throw InvariantViolation("the request line is not `\(request.method) \(request.target) \(request.version)`")
        }
        let lengths = request.headers.values(for: "Content-Length")
        if !request.headers.values(for: "Transfer-Encoding").isEmpty {
            guard lengths.isEmpty else { throw InvariantViolation("a request with both Transfer-Encoding and Content-Length was accepted") }
            guard let decoded = Self.decodeChunked(body), decoded == request.body else {
                throw InvariantViolation("a chunked body was parsed as \(request.body.count) bytes; an independent decoder disagrees")
            }
        } else if !lengths.isEmpty {
            // Repeated values must agree as numbers (`5, 05` is one length).
            let values = Set(lengths.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }.map { Int(Self.trimmed($0)) })
            guard values.count == 1, let length = values.first!, request.body.count == length, body.count == length else {
                throw InvariantViolation("Content-Length \(lengths) but a \(request.body.count)-byte body from \(body.count) bytes")
            }
        } else {
            guard request.body.isEmpty, body.isEmpty else { throw InvariantViolation("a request without a framed body has one") }
        }
    }

    private func route(_ request: HTTPRequest) throws(InvariantViolation) {
        let response: HTTPResponse
        do {
            response = try router.respond(to: request)
        } catch let error as HTTPError where [400, 404, 405].contains(error.status.code) {
            return  // a malformed escape, an unknown path, another method: answers, not failures
        } catch {
            throw InvariantViolation("routing \(request.method) \(request.target) threw \(error)")
        }
        guard response.status == .ok else { throw InvariantViolation("a handler's 200 came back as \(response.status)") }
    }

    /// RFC 9112 §7.1 written plainly: the body of a chunked message that is exactly `bytes`, or nil.
    static func decodeChunked(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        var index = bytes.startIndex
        func nextLine() -> ArraySlice<UInt8>? {
            guard let end = firstIndex(of: [0x0D, 0x0A], in: bytes[index...]) else { return nil }
            defer { index = end + 2 }
            return bytes[index..<end]
        }
        var body: [UInt8] = []
        while true {
            guard let line = nextLine() else { return nil }
            let digits = line.prefix { isHexDigit($0) }
            guard !digits.isEmpty, let size = Int(String(decoding: digits, as: UTF8.self), radix: 16) else { return nil }
            if size == 0 { break }
            guard bytes.endIndex - index >= size + 2, bytes[(index + size)...].starts(with: [0x0D, 0x0A]) else { return nil }
            body += bytes[index..<(index + size)]
            index += size + 2
        }
        while let trailer = nextLine() {
            if trailer.isEmpty { return index == bytes.endIndex ? body : nil }
        }
        return nil
    }

    /// Where reads end: one byte at a time, at random points, in equal pieces, or around line ends.
    private static func readBoundaries(_ input: [UInt8], _ random: inout Random) -> [Int] {
        guard input.count > 1 else { return [] }
        switch random.below(4) {
        case 0 where input.count <= 2048:
            return Array(1..<input.count)
        case 1:
            let piece = 1 + random.below(64)
            return Array(stride(from: piece, to: input.count, by: piece))
        case 2:
            return lineRanges(input).map { $0.upperBound - 1 - random.below(3) }.filter { $0 > 0 && $0 < input.count }.sorted()
        default:
            return Set((0...random.below(8)).map { _ in 1 + random.below(input.count - 1) }).sorted()
        }
    }

    /// The ranges of the CRLF-terminated lines (CRLF included), and of a last unterminated one.
    private static func lineRanges(_ bytes: [UInt8]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var start = 0
        var index = 0
        while index + 1 < bytes.count {
            if bytes[index] == 0x0D && bytes[index + 1] == 0x0A {
                ranges.append(start..<(index + 2))
                start = index + 2
                index += 2
            } else {
                index += 1
            }
        }
        if start < bytes.count { ranges.append(start..<bytes.count) }
        return ranges
    }

    private static func firstIndex(of pattern: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        var index = bytes.startIndex
        while index + pattern.count <= bytes.endIndex {
            if bytes[index] == pattern[0] && bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while text.first == " " || text.first == "\t" { text.removeFirst() }
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}

