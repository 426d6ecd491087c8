import Testing
@testable import SubledgerHTTP

private func request(_ method: String, _ target: String) throws -> HTTPRequest {
    try HTTPRequest(method: method, target: target, headers: ["Host": "x"])
}

/// The status of a response or of the HTTPError thrown instead.
private func status(_ router: Router, _ method: String, _ target: String) throws -> (Int, HTTPError?) {
    do {
        return (try router.respond(to: request(method, target)).status.code, nil)
    } catch let error as HTTPError {
        return (error.status.code, error)
    }
}

@Suite("Router")
struct RouterTests {
    private var router: Router {
        var router = Router()
        router.get("/v1/customers/{id}") { .text("customer \($0.pathParameters["id"]!)") }
        router.get("/v1/customers/{id}/history") { .text("history \($0.pathParameters["id"]!)") }
        router.get("/v1/reports/{name}") { .text("report \($0.pathParameters["name"]!)") }
        router.get("/v1/reports/mrr") { _ in .text("mrr") }
        router.post("/v1/notifications/appstore") { _ in .text("appended") }
        router.get("/") { _ in .html("<p>dashboard</p>") }
        return router
    }

    @Test("extracts percent-decoded path parameters")
    func parameters() throws {
        let response = try router.respond(to: request("GET", "/v1/customers/a%20b%2Fc/history?raw=1"))
        #expect(String(decoding: response.body, as: UTF8.self) == "history a b/c")
    }

    @Test("prefers a literal segment to a parameter")
    func specificity() throws {
        #expect(String(decoding: try router.respond(to: request("GET", "/v1/reports/mrr")).body, as: UTF8.self) == "mrr")
        #expect(String(decoding: try router.respond(to: request("GET", "/v1/reports/churn")).body, as: UTF8.self) == "report churn")
    }

    @Test("answers unknown paths with 404, including an empty parameter and a trailing slash")
    func notFound() throws {
        for target in ["/nope", "/v1/customers/", "/v1/customers//history", "/v1/customers/1/history/", "/v1"] {
            let (code, error) = try status(router, "GET", target)
            #expect(code == 404, "\(target)")
            #expect(error?.code == "not_found")
        }
    }

    @Test("answers a known path with the wrong method with 405 and Allow")
    func methodNotAllowed() throws {
        let (code, error) = try status(router, "DELETE", "/v1/notifications/appstore")
        #expect(code == 405)
        #expect(error?.headers["Allow"] == "POST")
        let (getCode, getError) = try status(router, "POST", "/v1/customers/7")
        #expect(getCode == 405)
        #expect(getError?.headers["Allow"] == "GET, HEAD")
    }

    @Test("serves HEAD with the GET route")
    func head() throws {
        #expect(try status(router, "HEAD", "/").0 == 200)
    }

    @Test("answers a malformed escape in a path segment with 400")
    func malformedSegment() throws {
        // Valid as a target (escapes are well formed) but not UTF-8 once decoded.
        #expect(try status(router, "GET", "/v1/customers/%FF").0 == 400)
    }
}

@Suite("Query parameters and headers")
struct ValueTests {
    @Test("decodes percent escapes and plus signs, keeps order and repeats, allows names without values")
    func query() throws {
        let query = try QueryParameters(decoding: "a=1&b=x+y%2Bz&a=2&flag&&empty=&%C3%A9=caf%C3%A9")
        #expect(query.values(for: "a") == ["1", "2"])
        #expect(query["b"] == "x y+z")
        #expect(query["flag"] == "")
        #expect(query["empty"] == "")
        #expect(query["é"] == "café")
        #expect(query["missing"] == nil)
    }

    @Test("rejects malformed escapes and non-UTF-8 in a query", arguments: ["a=%", "a=%4", "a=%GG", "%FF=1"])
    func malformedQuery(_ raw: String) {
        #expect(throws: HTTPError.self) { try QueryParameters(decoding: raw) }
    }

    @Test("looks up header names case-insensitively and finds list tokens")
    func headers() {
        var headers: HTTPHeaders = ["Content-Type": "text/plain", "Connection": "keep-alive, Upgrade"]
        headers.add("X-Multi", "1")
        headers.add("x-multi", "2")
        #expect(headers["content-type"] == "text/plain")
        #expect(headers.values(for: "X-MULTI") == ["1", "2"])
        #expect(headers.hasToken("upgrade", in: "connection"))
        #expect(!headers.hasToken("close", in: "connection"))
        headers.set("X-Multi", "3")
        #expect(headers.values(for: "x-multi") == ["3"])
        headers.remove("CONTENT-TYPE")
        #expect(!headers.contains("Content-Type"))
    }

    @Test("error responses are JSON with the code and an escaped detail")
    func errorResponse() throws {
        let response = HTTPResponse.error(.unprocessableContent, code: "signature_invalid", detail: "bad \"sig\"\n")
        #expect(response.status.code == 422)
        #expect(response.headers["Content-Type"] == "application/json")
        #expect(String(decoding: response.body, as: UTF8.self) == #"{"error":"signature_invalid","detail":"bad \"sig\"\n"}"#)
    }
}
