/// Parses HTTP/1.1 requests (RFC 9112) incrementally from a connection's ``InputBuffer``.
///
/// Strict by design: what a lenient parser would guess at is rejected, because a front proxy and
/// this server disagreeing about where a request ends is how requests get smuggled. Targets are
/// origin-form, or absolute-form reduced to their path and query (RFC 9112 requires it); lines end with CRLF (bare CR or LF is an error); obs-fold,
/// whitespace before a header's colon, control characters in values, conflicting
/// `Content-Length` values and `Content-Length` together with `Transfer-Encoding` are rejected.
package struct RequestParser {
    package struct Limits {
        /// The request line and header section, CRLFs included; also the budget for chunked trailers.
        package var maxHeaderBytes: Int
        /// Header lines; also the budget for chunked trailer lines.
        package var maxHeaderCount: Int
        /// The body after any chunked decoding.
        package var maxBodyBytes: Int

        package init(maxHeaderBytes: Int, maxHeaderCount: Int, maxBodyBytes: Int) {
            self.maxHeaderBytes = maxHeaderBytes
            self.maxHeaderCount = maxHeaderCount
            self.maxBodyBytes = maxBodyBytes
        }
    }

    package enum Outcome {
        /// The buffer holds no complete request yet.
        case needMoreData
        /// The client sent `Expect: 100-continue` and waits for the interim response before the
        /// body. Send `100 Continue`, then parse again.
        case continueExpected
        case request(HTTPRequest, keepAlive: Bool)
        /// The connection must be answered with the error and closed. `request` is what was
        /// understood of the request, if its head was parsed (for the access log).
        case failure(HTTPError, request: HTTPRequest?)
    }

    private struct Pending {
        var request: HTTPRequest
        let keepAlive: Bool
    }

    private enum ChunkPhase {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailers(bytes: Int, lines: Int)
    }

    private enum State {
        case head(scanned: Int)
        case fixedBody(Pending, length: Int)
        case chunkedBody(Pending, ChunkPhase)
    }

    private enum Framing {
        case none
        case length(Int)
        case chunked
    }

    package let limits: Limits
    private var state = State.head(scanned: 0)
    /// The decoded body of a chunked request, kept outside `state` so appends don't copy it.
    private var chunkedBody: [UInt8] = []

    package init(limits: Limits) {
        self.limits = limits
    }

    /// The bytes of a chunked body decoded so far, held here rather than in the input.
    package var bufferedBodyBytes: Int { chunkedBody.count }

    /// Consumes bytes of the next request from `buffer`; bytes after a complete request are left
    /// for the next call (pipelining).
    package mutating func parse(_ buffer: inout InputBuffer) -> Outcome {
        switch state {
        case .head(let scanned):
            return parseHead(&buffer, scanned: scanned)
        case .fixedBody(var pending, let length):
            guard buffer.count >= length else { return .needMoreData }
            pending.request.body = Array(buffer[0..<length])
            buffer.consume(length)
            state = .head(scanned: 0)
            return .request(pending.request, keepAlive: pending.keepAlive)
        case .chunkedBody(let pending, let phase):
            return parseChunked(&buffer, pending: pending, phase: phase)
        }
    }

    // MARK: Head

    private mutating func parseHead(_ buffer: inout InputBuffer, scanned: Int) -> Outcome {
        if scanned == 0 {
            // RFC 9112 §2.2: ignore empty lines before the request line (some clients send CRLF after a body).
            while buffer.count >= 2 && buffer[0] == HTTPSyntax.cr && buffer[1] == HTTPSyntax.lf {
                buffer.consume(2)
            }
            if buffer.count == 1 && buffer[0] == HTTPSyntax.cr { return .needMoreData }
        }
        let end: Int
        switch findHeadEnd(buffer, from: scanned) {
        case .failure(let error):
            return .failure(error, request: nil)
        case .success(.incomplete(let scannedNow)):
            state = .head(scanned: scannedNow)
            return .needMoreData
        case .success(.complete(let headEnd)):
            end = headEnd
        }
        let head: (Pending, Framing, expectsContinue: Bool)
        switch parseHeadLines(buffer[0..<end]) {
        case .failure(let failure):
            return .failure(failure.error, request: failure.request)
        case .success(let parsed):
            head = parsed
        }
        buffer.consume(end)
        let (pending, framing, expectsContinue) = head
        switch framing {
        case .none, .length(0):
            state = .head(scanned: 0)
            return .request(pending.request, keepAlive: pending.keepAlive)
        case .length(let length):
            state = .fixedBody(pending, length: length)
        case .chunked:
            state = .chunkedBody(pending, .size)
            chunkedBody = []
        }
        // A client that has started sending the body is not waiting for the interim response.
        if expectsContinue && buffer.isEmpty { return .continueExpected }
        return parse(&buffer)
    }

    private enum HeadScan {
        case incomplete(scanned: Int)
        /// The offset just past the CRLF CRLF ending the header section.
        case complete(Int)
    }

    private func findHeadEnd(_ buffer: InputBuffer, from scanned: Int) -> Result<HeadScan, HTTPError> {
        let limit = min(buffer.count, limits.maxHeaderBytes)
        var index = scanned
        while index < limit {
            let byte = buffer[index]
            if byte == HTTPSyntax.lf {
                guard index > 0 && buffer[index - 1] == HTTPSyntax.cr else {
                    return .failure(Self.badRequest("a line ends with a bare LF; lines must end with CRLF"))
                }
                if index >= 3 && buffer[index - 2] == HTTPSyntax.lf { return .success(.complete(index + 1)) }
            } else if byte == HTTPSyntax.cr {
                // A CR in the last byte that may be read: its LF is unseen (not yet received, or past
                // the limit), whether or not more bytes arrived, so the answer cannot depend on reads.
                if index + 1 == limit { break }
                guard buffer[index + 1] == HTTPSyntax.lf else {
                    return .failure(Self.badRequest("the request head contains a bare CR"))
                }
            }
            index += 1
        }
        if buffer.count >= limits.maxHeaderBytes {
            // No line ended within the limit: the request line itself is too long (a target's query).
            if buffer.firstIndex(of: HTTPSyntax.lf, within: limits.maxHeaderBytes) == nil {
                return .failure(HTTPError(.uriTooLong, code: "uri_too_long",
                                          detail: "the request line exceeds \(limits.maxHeaderBytes) bytes; send fewer or shorter query parameters"))
            }
            return .failure(HTTPError(.requestHeaderFieldsTooLarge, code: "headers_too_large",
                                      detail: "the request line and headers exceed \(limits.maxHeaderBytes) bytes"))
        }
        return .success(.incomplete(scanned: index))
    }

    private struct HeadFailure: Error {
        let error: HTTPError
        var request: HTTPRequest?
    }

    /// Parses a complete head (ending with CRLF CRLF) into the request and its body framing.
    private func parseHeadLines(_ head: ArraySlice<UInt8>) -> Result<(Pending, Framing, expectsContinue: Bool), HeadFailure> {
        // Every LF in `head` follows a CR (findHeadEnd checked), so lines split cleanly on LF.
        var lines = head.split(separator: HTTPSyntax.lf, omittingEmptySubsequences: false).map { $0.dropLast() }
        lines.removeLast(2)  // the empty line ending the section, and what follows its LF
        let requestLine: (method: String, target: String, version: HTTPVersion)
        switch Self.parseRequestLine(lines.removeFirst()) {
        case .failure(let error): return .failure(HeadFailure(error: error))
        case .success(let parsed): requestLine = parsed
        }
        if lines.count > limits.maxHeaderCount {
            return .failure(HeadFailure(error: HTTPError(.requestHeaderFieldsTooLarge, code: "too_many_headers",
                                                         detail: "the request has more than \(limits.maxHeaderCount) header lines")))
        }
        var headers = HTTPHeaders()
        for line in lines {
            switch Self.parseFieldLine(line) {
            case .failure(let error): return .failure(HeadFailure(error: error))
            case .success(let field): headers.add(field.name, field.value)
            }
        }
        let request: HTTPRequest
        do {
            request = try HTTPRequest(method: requestLine.method, target: requestLine.target,
                                      version: requestLine.version, headers: headers)
        } catch {
            // Its method and path still name it in the access log and the metrics (`method=GET`,
            // not `method=-` and `other`); the query, which failed to read, is left out.
            let path = String(requestLine.target.prefix { $0 != "?" })
            return .failure(HeadFailure(error: error, request: try? HTTPRequest(method: requestLine.method, target: path, version: requestLine.version, headers: headers)))
        }
        switch requestSemantics(headers: headers, version: requestLine.version) {
        case .failure(let error):
            return .failure(HeadFailure(error: error, request: request))
        case .success(let (framing, keepAlive, expectsContinue)):
            return .success((Pending(request: request, keepAlive: keepAlive), framing, expectsContinue))
        }
    }

    private static func parseRequestLine(_ line: ArraySlice<UInt8>) -> Result<(method: String, target: String, version: HTTPVersion), HTTPError> {
        let parts = line.split(separator: HTTPSyntax.space, omittingEmptySubsequences: false)
        guard parts.count == 3 else {
            return .failure(badRequest("the request line must be: method, one space, target, one space, HTTP version"))
        }
        let (method, target, version) = (parts[0], parts[1], parts[2])
        guard HTTPSyntax.isToken(method) else {
            return .failure(badRequest("the method is not a token"))
        }
        let path = target.first == UInt8(ascii: "/") ? target : originForm(ofAbsolute: target)
        guard path.first == UInt8(ascii: "/") else {
            return .failure(badRequest("the request target must be a path starting with / (or an http or https URL)"))
        }
        // Visible ASCII without '#': a fragment is never sent, and whitespace or controls mean a broken client.
        guard target.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "#") }) else {
            return .failure(badRequest("the request target contains a character that must be percent-encoded"))
        }
        let digits = Array(version)
        guard digits.count == 8, digits[0..<5].elementsEqual("HTTP/".utf8), digits[6] == UInt8(ascii: "."),
              let major = decimalDigit(digits[5]), let minor = decimalDigit(digits[7]) else {
            return .failure(badRequest("the HTTP version must look like HTTP/1.1"))
        }
        guard major == 1 && (minor == 0 || minor == 1) else {
            return .failure(HTTPError(.httpVersionNotSupported, code: "http_version_not_supported",
                                      detail: "only HTTP/1.0 and HTTP/1.1 are supported"))
        }
        return .success((String(decoding: method, as: UTF8.self), String(decoding: path, as: UTF8.self),
                         HTTPVersion(major: major, minor: minor)))
    }

    /// The path and query of an absolute-form target (`http://host/path?query`), which a server
    /// must accept (RFC 9112 §3.2.2) and which names this server whatever its host says; `/`
    /// for a URL without a path. Empty for anything else: other schemes, or no host.
    private static func originForm(ofAbsolute target: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let lowered = target.prefix(8).map { $0 | 0x20 }
        let schemeLength = lowered.starts(with: "http://".utf8) ? 7 : lowered.starts(with: "https://".utf8) ? 8 : 0
        guard schemeLength > 0 else { return [] }
        let authority = target.dropFirst(schemeLength)
        let end = authority.firstIndex { $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") } ?? authority.endIndex
        guard end > authority.startIndex else { return [] }
        let rest = authority[end...]
        return rest.first == UInt8(ascii: "/") ? rest : ArraySlice([UInt8(ascii: "/")] + rest)
    }

    /// `field-name ":" OWS field-value OWS` (RFC 9112 §5).
    private static func parseFieldLine(_ line: ArraySlice<UInt8>) -> Result<HTTPHeaders.Field, HTTPError> {
        guard let first = line.first, !HTTPSyntax.isWhitespace(first) else {
            return .failure(badRequest("obsolete line folding (a header line starting with whitespace) is not accepted"))
        }
        guard let colon = line.firstIndex(of: HTTPSyntax.colon), HTTPSyntax.isToken(line[..<colon]) else {
            return .failure(badRequest("a header line has no name, an invalid name or whitespace before its colon"))
        }
        var value = line[(colon + 1)...]
        while let byte = value.first, HTTPSyntax.isWhitespace(byte) { value.removeFirst() }
        while let byte = value.last, HTTPSyntax.isWhitespace(byte) { value.removeLast() }
        guard HTTPSyntax.isFieldValue(value) else {
            return .failure(badRequest("a header value contains a control character"))
        }
        return .success(HTTPHeaders.Field(name: String(decoding: line[..<colon], as: UTF8.self),
                                          value: String(decoding: value, as: UTF8.self)))
    }

    /// Host, body framing (RFC 9112 §6.3), persistence (§9.3) and expectations (RFC 9110 §10.1.1).
    private func requestSemantics(headers: HTTPHeaders, version: HTTPVersion) -> Result<(Framing, keepAlive: Bool, expectsContinue: Bool), HTTPError> {
        let hosts = headers.values(for: "Host")
        if hosts.count > 1 || (version == .http1_1 && hosts.isEmpty) {
            return .failure(Self.badRequest("an HTTP/1.1 request must have exactly one Host header"))
        }
        if let host = hosts.first, !HTTPSyntax.isHostField(host) {
            return .failure(Self.badRequest("the Host header is not a valid host"))
        }

        let framing: Framing
        let lengths = headers.values(for: "Content-Length")
        let encodings = headers.values(for: "Transfer-Encoding")
        if !encodings.isEmpty {
            guard lengths.isEmpty else {
                return .failure(Self.badRequest("a request must not have both Content-Length and Transfer-Encoding"))
            }
            guard version == .http1_1 else {
                return .failure(Self.badRequest("Transfer-Encoding is not allowed in an HTTP/1.0 request"))
            }
            let codings = encodings.flatMap(HTTPSyntax.listElements)
            guard let last = codings.last, HTTPSyntax.equalsIgnoringCase(last, "chunked") else {
                return .failure(Self.badRequest("chunked must be the final transfer coding of a request"))
            }
            guard codings.count == 1 else {
                return .failure(HTTPError(.notImplemented, code: "unsupported_transfer_coding",
                                          detail: "only the chunked transfer coding is supported"))
            }
            framing = .chunked
        } else if !lengths.isEmpty {
            switch Self.contentLength(lengths) {
            case .failure(let error): return .failure(error)
            case .success(let length):
                guard length <= limits.maxBodyBytes else { return .failure(bodyTooLarge) }
                framing = .length(length)
            }
        } else {
            framing = .none
        }

        let close = headers.hasToken("close", in: "Connection")
        let keepAlive = version == .http1_1 ? !close : headers.hasToken("keep-alive", in: "Connection") && !close

        let expectations = headers.values(for: "Expect").flatMap(HTTPSyntax.listElements)
        guard expectations.allSatisfy({ HTTPSyntax.equalsIgnoringCase($0, "100-continue") }) else {
            return .failure(HTTPError(.expectationFailed, code: "expectation_failed",
                                      detail: "the only supported expectation is 100-continue"))
        }
        return .success((framing, keepAlive, !expectations.isEmpty && version == .http1_1))
    }

    /// The one value of every `Content-Length` line and list element; `Int.max` when too large to represent.
    private static func contentLength(_ values: [String]) -> Result<Int, HTTPError> {
        var length: Int?
        for value in values {
            for element in value.utf8.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
                var digits = element[...]
                while let byte = digits.first, HTTPSyntax.isWhitespace(byte) { digits.removeFirst() }
                while let byte = digits.last, HTTPSyntax.isWhitespace(byte) { digits.removeLast() }
                guard !digits.isEmpty, digits.allSatisfy({ decimalDigit($0) != nil }) else {
                    return .failure(badRequest("Content-Length must be a decimal number"))
                }
                var parsed = 0
                for digit in digits {
                    let (times10, overflow1) = parsed.multipliedReportingOverflow(by: 10)
                    let (sum, overflow2) = times10.addingReportingOverflow(Int(digit - UInt8(ascii: "0")))
                    parsed = overflow1 || overflow2 ? Int.max : sum
                }
                if let length, length != parsed {
                    return .failure(badRequest("the request has Content-Length values that differ"))
                }
                length = parsed
            }
        }
        return .success(length ?? 0)
    }

    // MARK: Chunked body

    private static let maxChunkSizeLine = 4096

    private mutating func parseChunked(_ buffer: inout InputBuffer, pending: Pending, phase: ChunkPhase) -> Outcome {
        var phase = phase
        while true {
            switch phase {
            case .size:
                guard let lf = buffer.firstIndex(of: HTTPSyntax.lf, within: Self.maxChunkSizeLine) else {
                    if buffer.count >= Self.maxChunkSizeLine {
                        return .failure(Self.badRequest("a chunk size line is too long"), request: pending.request)
                    }
                    state = .chunkedBody(pending, phase)
                    return .needMoreData
                }
                guard lf > 0 && buffer[lf - 1] == HTTPSyntax.cr else {
                    return .failure(Self.badRequest("a chunk size line must end with CRLF"), request: pending.request)
                }
                let room = limits.maxBodyBytes - chunkedBody.count
                switch Self.chunkSize(buffer[0..<(lf - 1)], limit: room) {
                case .failure(let error):
                    return .failure(error, request: pending.request)
                case .success(nil):
                    return .failure(bodyTooLarge, request: pending.request)
                case .success(0?):
                    phase = .trailers(bytes: 0, lines: 0)
                case .success(let size?):
                    phase = .data(remaining: size)
                }
                buffer.consume(lf + 1)
            case .data(let remaining):
                let available = min(remaining, buffer.count)
                if available == 0 {
                    state = .chunkedBody(pending, phase)
                    return .needMoreData
                }
                chunkedBody.append(contentsOf: buffer[0..<available])
                buffer.consume(available)
                phase = remaining == available ? .dataEnd : .data(remaining: remaining - available)
            case .dataEnd:
                guard buffer.count >= 2 else {
                    state = .chunkedBody(pending, phase)
                    return .needMoreData
                }
                guard buffer[0] == HTTPSyntax.cr && buffer[1] == HTTPSyntax.lf else {
                    return .failure(Self.badRequest("chunk data must be followed by CRLF"), request: pending.request)
                }
                buffer.consume(2)
                phase = .size
            case .trailers(let bytes, let lines):
                let budget = limits.maxHeaderBytes - bytes
                guard let lf = buffer.firstIndex(of: HTTPSyntax.lf, within: budget) else {
                    if buffer.count >= budget {
                        return .failure(HTTPError(.requestHeaderFieldsTooLarge, code: "headers_too_large",
                                                  detail: "the chunked trailer section exceeds \(limits.maxHeaderBytes) bytes"),
                                        request: pending.request)
                    }
                    state = .chunkedBody(pending, phase)
                    return .needMoreData
                }
                guard lf > 0 && buffer[lf - 1] == HTTPSyntax.cr else {
                    return .failure(Self.badRequest("a trailer line must end with CRLF"), request: pending.request)
                }
                let line = buffer[0..<(lf - 1)]
                if line.isEmpty {
                    buffer.consume(lf + 1)
                    var request = pending.request
                    request.body = chunkedBody
                    chunkedBody = []
                    state = .head(scanned: 0)
                    return .request(request, keepAlive: pending.keepAlive)
                }
                // Trailers are validated and dropped: nothing here needs them.
                if case .failure(let error) = Self.parseFieldLine(line) {
                    return .failure(error, request: pending.request)
                }
                guard lines < limits.maxHeaderCount else {
                    return .failure(HTTPError(.requestHeaderFieldsTooLarge, code: "too_many_headers",
                                              detail: "the chunked trailer section has more than \(limits.maxHeaderCount) lines"),
                                    request: pending.request)
                }
                buffer.consume(lf + 1)
                phase = .trailers(bytes: bytes + lf + 1, lines: lines + 1)
            }
        }
    }

    /// `chunk-size [chunk-ext]` (RFC 9112 §7.1): the size, or nil when it exceeds `limit`.
    /// Extensions are checked for control characters and ignored.
    private static func chunkSize(_ line: ArraySlice<UInt8>, limit: Int) -> Result<Int?, HTTPError> {
        var size = 0
        var tooLarge = false
        var index = line.startIndex
        while index < line.endIndex, let digit = HTTPSyntax.hexValue(line[index]) {
            if !tooLarge {
                size = size * 16 + Int(digit)  // cannot overflow: size ≤ limit before this step
                tooLarge = size > limit
            }
            index += 1
        }
        guard index > line.startIndex else {
            return .failure(badRequest("a chunk size must be hexadecimal digits"))
        }
        var rest = line[index...]
        while let byte = rest.first, HTTPSyntax.isWhitespace(byte) { rest.removeFirst() }
        // Whitespace may only come before an extension's `;` (BWS, RFC 9112 7.1.1).
        guard (rest.isEmpty && rest.startIndex == index) || (rest.first == UInt8(ascii: ";") && HTTPSyntax.isFieldValue(rest)) else {
            return .failure(badRequest("a chunk size is followed by something other than an extension"))
        }
        return .success(tooLarge ? nil : size)
    }

    // MARK: Errors

    private var bodyTooLarge: HTTPError {
        HTTPError(.contentTooLarge, code: "body_too_large", detail: "the request body exceeds \(limits.maxBodyBytes) bytes")
    }

    private static func badRequest(_ detail: String) -> HTTPError {
        HTTPError(.badRequest, code: "bad_request", detail: detail)
    }

    private static func decimalDigit(_ byte: UInt8) -> Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) ? Int(byte - UInt8(ascii: "0")) : nil
    }
}
