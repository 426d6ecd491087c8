/// The HTTP version of a request.
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    public let major: Int
    public let minor: Int

    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static let http1_0 = HTTPVersion(major: 1, minor: 0)
    public static let http1_1 = HTTPVersion(major: 1, minor: 1)

    public var description: String { "HTTP/\(major).\(minor)" }
}

/// The peer of a connection: a numeric IP address and a port.
public struct RemoteAddress: Sendable, Hashable, CustomStringConvertible {
    /// `127.0.0.1` or `::1`, without brackets.
    public let host: String
    public let port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `127.0.0.1:5000` or `[::1]:5000`.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

/// A complete request as the server received it, with its body read in full.
public struct HTTPRequest: Sendable {
    /// The method token, case-sensitive as sent (`GET`).
    public var method: String
    /// The request target as sent: the path and, after `?`, the query.
    public let target: String
    /// The path part of the target, still percent-encoded as received (`/v1/customers/a%20b`);
    /// ``Router`` decodes each segment.
    public let path: String
    /// The path's segments percent-decoded, as ``Router`` matches them (`/v1/%68ead` is
    /// `["v1", "head"]`), nil when an escape decodes to no UTF-8: what tells which resource a
    /// request names, where `path` has many spellings of each.
    public let pathSegments: [String]?
    /// The raw query part of the target, after `?` (empty when there is none).
    public let rawQuery: String
    /// The decoded query parameters.
    public let query: QueryParameters
    public var version: HTTPVersion
    public var headers: HTTPHeaders
    public var body: [UInt8]
    public var remoteAddress: RemoteAddress
    /// The values of a ``Router`` pattern's `{name}` segments, percent-decoded; empty elsewhere.
    public var pathParameters: [String: String]

    /// A request for `target`, an origin-form target (`/path?query`).
    /// Throws a 400 ``HTTPError`` when the target does not start with `/` or has a malformed
    /// percent escape.
    public init(method: String, target: String, version: HTTPVersion = .http1_1, headers: HTTPHeaders = HTTPHeaders(),
                body: [UInt8] = [], remoteAddress: RemoteAddress = RemoteAddress(host: "127.0.0.1", port: 0)) throws(HTTPError) {
        guard target.utf8.first == UInt8(ascii: "/") else {
            throw HTTPError(.badRequest, code: "invalid_target", detail: "the request target must be a path starting with /")
        }
        let question = target.utf8.firstIndex(of: UInt8(ascii: "?"))
        let path = String(target[..<(question ?? target.endIndex)])
        guard PercentEncoding.hasValidEscapes(path.utf8) else {
            throw HTTPError(.badRequest, code: "invalid_path", detail: "the path has a malformed percent escape")
        }
        let rawQuery = question.map { String(target[target.index(after: $0)...]) } ?? ""
        self.method = method
        self.target = target
        self.path = path
        self.pathSegments = Self.segments(of: path)
        self.rawQuery = rawQuery
        self.query = try QueryParameters(decoding: rawQuery)
        self.version = version
        self.headers = headers
        self.body = body
        self.remoteAddress = remoteAddress
        self.pathParameters = [:]
    }

    /// `path`'s segments after its leading `/`, each percent-decoded; nil when one is not UTF-8.
    public static func segments(of path: String) -> [String]? {
        var segments: [String] = []
        for raw in path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst() {
            guard let segment = PercentEncoding.decode(raw, plusAsSpace: false) else { return nil }
            segments.append(segment)
        }
        return segments
    }
}
