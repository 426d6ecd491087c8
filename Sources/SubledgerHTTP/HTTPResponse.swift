/// A response for the server to send. The server adds `Content-Length`, `Date` and `Connection`.
public struct HTTPResponse: Sendable {
    public var status: HTTPStatus
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// For a body that streams instead (`body` is then ignored): called on the event loop with
    /// the stream once the headers are queued. It must return at once (hand the stream to a
    /// producer); the connection closes when the stream ends.
    public var stream: (@Sendable (ResponseStream) -> Void)?
    /// What the request did, where the status does not say it (a 200 that stored a message or
    /// found it stored, an error's code), for the access log's `outcome=`: never sent.
    public var outcome: String?

    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// `text/event-stream` (Server-Sent Events), its events fed to the stream `start` receives.
    public static func eventStream(_ start: @escaping @Sendable (ResponseStream) -> Void) -> HTTPResponse {
        var response = HTTPResponse(headers: ["Content-Type": "text/event-stream", "Cache-Control": "no-cache"])
        response.stream = start
        return response
    }

    /// `application/json`: `json` must already be a JSON document.
    public static func json(_ document: String, status: HTTPStatus = .ok) -> HTTPResponse {
        json(bytes: Array(document.utf8), status: status)
    }

    /// `application/json` from already-encoded bytes.
    public static func json(bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: bytes)
    }

    /// `text/plain; charset=utf-8`.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// `text/html; charset=utf-8`.
    public static func html(_ html: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(html.utf8))
    }

    /// The JSON error document `{"error": code, "detail": detail}`.
    public static func error(_ status: HTTPStatus, code: String, detail: String) -> HTTPResponse {
        HTTPError(status, code: code, detail: detail).response
    }
}
