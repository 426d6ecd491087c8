/// Checks a shared secret sent as `Authorization: Bearer <token>` or as the cookie
/// `subledger_token=<token>` (for the browser dashboard).
///
/// The comparison takes the same time wherever the presented token first differs, so response
/// timing does not reveal how much of a guess was right.
public struct BearerTokenAuthenticator: Sendable {
    public static let cookieName = "subledger_token"

    private let token: [UInt8]

    /// `token` must not be empty (trim a token file's trailing newline before passing it).
    public init(token: String) {
        precondition(!token.isEmpty, "a bearer token must not be empty")
        self.token = Array(token.utf8)
    }

    /// True when the header or the cookie carries the token, and there is at most one
    /// `Authorization` header.
    public func isAuthorized(_ request: HTTPRequest) -> Bool {
        refusal(of: request) == nil
    }

    /// Nil when authorized, else the 401 response to send (400 for two `Authorization` headers).
    public func check(_ request: HTTPRequest) -> HTTPResponse? {
        refusal(of: request)?.response
    }

    /// `handler` behind the token check.
    public func protect(_ handler: @escaping Router.Handler) -> Router.Handler {
        { request in
            if let refusal = refusal(of: request) { throw refusal }
            return try handler(request)
        }
    }

    private func refusal(of request: HTTPRequest) -> HTTPError? {
        // A field that may appear once (RFC 9110 11.6.2): sent twice, one of them came from
        // somewhere else (a proxy, an injected header), and either alone let the request in.
        guard request.headers.values(for: "Authorization").count <= 1 else { return Self.twoAuthorizations }
        // Every candidate is compared, whether or not an earlier one matched.
        var matches = 0
        for candidate in Self.presentedTokens(request) where Self.constantTimeEquals(Array(candidate.utf8), token) {
            matches += 1
        }
        return matches > 0 ? nil : Self.unauthorized
    }

    static let unauthorized = refusal("send the API token as Authorization: Bearer <token>")
    static let twoAuthorizations = HTTPError(.badRequest, code: "bad_request", detail: "the request has more than one Authorization header: send one")

    /// A 401 saying `detail`, with the challenge RFC 9110 (15.5.2) requires of every 401.
    public static func refusal(_ detail: String) -> HTTPError {
        HTTPError(.unauthorized, code: "unauthorized", detail: detail, headers: ["WWW-Authenticate": #"Bearer realm="subledger""#])
    }

    private static func presentedTokens(_ request: HTTPRequest) -> [Substring] {
        var tokens: [Substring] = []
        for value in request.headers.values(for: "Authorization") {
            let parts = value.split(separator: " ", maxSplits: 1)
            if parts.count == 2, HTTPSyntax.equalsIgnoringCase(parts[0], "Bearer") {
                tokens.append(parts[1].drop { $0 == " " })
            }
        }
        for value in request.headers.values(for: "Cookie") {
            for pair in value.split(separator: ";") {
                let pair = pair.drop { $0 == " " }
                if pair.hasPrefix(cookieName + "=") {
                    tokens.append(pair.dropFirst(cookieName.utf8.count + 1))
                }
            }
        }
        return tokens
    }

    /// Compares all of `presented` whatever its content, so the time depends only on its length.
    static func constantTimeEquals(_ presented: [UInt8], _ expected: [UInt8]) -> Bool {
        var difference: UInt8 = presented.count == expected.count ? 0 : 1
        for index in presented.indices {
            difference |= presented[index] ^ expected[index % expected.count]
        }
        return difference == 0
    }
}

/// True when `host` is a loopback address: 127.0.0.0/8, `::1`, an IPv4-mapped 127.x address,
/// or `localhost`. A server bound anywhere else is reachable from the network and must not run
/// without a token.
public func isLoopback(host: String) -> Bool {
    var host = host
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if host.lowercased() == "localhost" { return true }
    guard let address = SocketAddress(host: host, port: 0) else { return false }
    let octets = address.ipv4Octets
    return octets?.first == 127 || address.isIPv6Loopback
}
