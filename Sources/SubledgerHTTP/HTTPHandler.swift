/// Answers requests. The server calls it on one of its worker threads, never on the event loop,
/// so it may block (on a lock, on `fsync`) for as long as it needs; a worker is busy meanwhile.
///
/// A handler that waits for work done elsewhere (the webhook waits for its group's sync and fold)
/// implements ``respond(to:completion:)`` instead and returns at once, so that its worker takes
/// the next request rather than sleeping.
///
/// A thrown ``HTTPError`` becomes its JSON error response; any other error a 500 whose detail
/// does not reveal it (the error is written to the access log instead).
public protocol HTTPHandler: Sendable {
    func respond(to request: HTTPRequest) throws -> HTTPResponse
    /// Answers by calling `completion` once, on any thread, now or later.
    func respond(to request: HTTPRequest, completion: @escaping HTTPCompletion)
}

/// How a handler answers later: once, with a response or with what it throws.
public typealias HTTPCompletion = @Sendable (Result<HTTPResponse, any Error>) -> Void

extension HTTPHandler {
    public func respond(to request: HTTPRequest, completion: @escaping HTTPCompletion) {
        completion(Result { try respond(to: request) })
    }
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
