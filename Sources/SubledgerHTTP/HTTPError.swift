import SubledgerCore

/// A failure to answer with a JSON error document `{"error": code, "detail": detail}`.
///
/// Handlers throw it to end a request with that status; the server produces the same shape for
/// the errors it detects itself (malformed requests, limits, timeouts, overload).
public struct HTTPError: Error, Sendable, Equatable, CustomStringConvertible {
    public var status: HTTPStatus
    /// A stable, machine-readable code such as `not_found`.
    public var code: String
    /// A sentence for the human reading the response.
    public var detail: String
    /// Extra header fields for the response, such as `Allow` or `WWW-Authenticate`.
    public var headers: HTTPHeaders

    public init(_ status: HTTPStatus, code: String, detail: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.code = code
        self.detail = detail
        self.headers = headers
    }

    public var response: HTTPResponse {
        var response = HTTPResponse.json(#"{"error":\#(JSON.string(code).serialized()),"detail":\#(JSON.string(detail).serialized())}"#,
                                         status: status)
        for field in headers { response.headers.add(field.name, field.value) }
        response.outcome = code
        return response
    }

    public var description: String { "\(status.code) \(code): \(detail)" }
}
