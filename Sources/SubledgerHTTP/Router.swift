import SubledgerCore

/// Routes requests by method and path pattern to handlers.
///
/// A pattern is a path whose segments are literals or `{name}` parameters:
/// `/v1/customers/{id}/history`. Segments are percent-decoded before matching, and a parameter
/// matches one non-empty segment; its decoded value is in ``HTTPRequest/pathParameters``.
/// When several patterns match, literals win over parameters from the left
/// (`/v1/reports/mrr` before `/v1/reports/{name}`). A `HEAD` request is served by the `GET`
/// route when there is no `HEAD` route (the server drops the body).
///
/// Unknown paths get a 404 JSON error; a known path with another method gets 405 with `Allow`.
public struct Router: HTTPHandler {
    public typealias Handler = @Sendable (HTTPRequest) throws -> HTTPResponse
    /// A route that answers later, through the completion (see ``HTTPHandler``).
    public typealias DeferredHandler = @Sendable (HTTPRequest, @escaping HTTPCompletion) -> Void

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    private struct Route: Sendable {
        let method: String
        let pattern: String
        let segments: [Segment]
        let handler: DeferredHandler
    }

    private var routes: [Route] = []

    public init() {}

    /// Adds a route. A malformed pattern, or the same method and pattern twice, is a programming error.
    public mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Handler) {
        add(method, pattern, answeringLater: { request, completion in completion(Result { try handler(request) }) })
    }

    /// Adds a route whose handler answers through its completion.
    public mutating func add(_ method: String, _ pattern: String, answeringLater handler: @escaping DeferredHandler) {
        precondition(HTTPSyntax.isToken(method.utf8), "\(method) is not an HTTP method token")
        let segments = Self.compile(pattern)
        precondition(!routes.contains { $0.method == method && $0.segments == segments },
                     "\(method) \(pattern) is already routed")
        routes.append(Route(method: method, pattern: pattern, segments: segments, handler: handler))
    }

    public mutating func get(_ pattern: String, _ handler: @escaping Handler) { add("GET", pattern, handler) }
    public mutating func post(_ pattern: String, _ handler: @escaping Handler) { add("POST", pattern, handler) }

    /// Waits for a route that answers later; the server calls ``respond(to:completion:)``.
    public func respond(to request: HTTPRequest) throws -> HTTPResponse {
        try waitForCompletion { respond(to: request, completion: $0) }.get()
    }

    public func respond(to request: HTTPRequest, completion: @escaping HTTPCompletion) {
        let route: (handler: DeferredHandler, request: HTTPRequest)
        do {
            route = try self.route(request)
        } catch {
            return completion(.failure(error))
        }
        route.handler(route.request, completion)
    }

    /// The handler of the route `request` matches, and the request with its path parameters.
    private func route(_ request: HTTPRequest) throws -> (handler: DeferredHandler, request: HTTPRequest) {
        guard let segments = request.pathSegments else {
            throw HTTPError(.badRequest, code: "invalid_path", detail: "the path has a malformed percent escape or is not UTF-8")
        }
        var matches: [(route: Route, parameters: [String: String])] = []
        for route in routes {
            if let parameters = Self.match(route.segments, segments) { matches.append((route, parameters)) }
        }
        guard !matches.isEmpty else {
            throw HTTPError(.notFound, code: "not_found", detail: "no resource at \(request.path)")
        }
        let method = request.method == "HEAD" && !matches.contains { $0.route.method == "HEAD" } ? "GET" : request.method
        guard let best = matches.filter({ $0.route.method == method }).min(by: { Self.isMoreSpecific($0.route, $1.route) }) else {
            var allowed = Set(matches.map(\.route.method))
            if allowed.contains("GET") { allowed.insert("HEAD") }
            let allow = allowed.sorted().joined(separator: ", ")
            throw HTTPError(.methodNotAllowed, code: "method_not_allowed",
                            detail: "\(request.method) is not allowed here; use \(allow)", headers: ["Allow": allow])
        }
        var routed = request
        routed.pathParameters = best.parameters
        return (best.route.handler, routed)
    }

    private static func compile(_ pattern: String) -> [Segment] {
        precondition(pattern.hasPrefix("/"), "route pattern \(pattern) must start with /")
        var names = Set<String>()
        return pattern.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map { part in
            if part.hasPrefix("{") && part.hasSuffix("}") {
                let name = String(part.dropFirst().dropLast())
                precondition(!name.isEmpty && names.insert(name).inserted, "route pattern \(pattern) has an empty or repeated parameter name")
                return .parameter(name)
            }
            precondition(!part.contains("{") && !part.contains("}"), "in route pattern \(pattern), a parameter must be a whole segment")
            return .literal(String(part))
        }
    }

    private static func match(_ pattern: [Segment], _ segments: [String]) -> [String: String]? {
        guard pattern.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        for (part, segment) in zip(pattern, segments) {
            switch part {
            case .literal(let literal):
                guard literal == segment else { return nil }
            case .parameter(let name):
                guard !segment.isEmpty else { return nil }
                parameters[name] = segment
            }
        }
        return parameters
    }

    /// Literal before parameter at the first segment where the two differ in kind.
    private static func isMoreSpecific(_ a: Route, _ b: Route) -> Bool {
        for (x, y) in zip(a.segments, b.segments) {
            switch (x, y) {
            case (.literal, .parameter): return true
            case (.parameter, .literal): return false
            default: continue
            }
        }
        return false
    }
}
