/// Answers requests. The server calls it on one of its worker threads, never on the event loop,
/// so it may block (on a lock, on `fsync`) for as long as it needs; a worker is busy meanwhile.
///
/// A thrown ``HTTPError`` becomes its JSON error response; any other error a 500 whose detail
/// does not reveal it (the error is written to the access log instead).
public protocol HTTPHandler: Sendable {
    func respond(to request: HTTPRequest) throws -> HTTPResponse
}

/// A handler made of a closure.
public struct ClosureHandler: HTTPHandler {
    private let body: @Sendable (HTTPRequest) throws -> HTTPResponse

    public init(_ body: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) {
        self.body = body
    }

    public func respond(to request: HTTPRequest) throws -> HTTPResponse {
        try body(request)
    }
}
