import Testing
@testable import SubledgerHTTP

@Suite("Bearer token authentication")
struct AuthenticationTests {
    private let authenticator = BearerTokenAuthenticator(token: "s3cret-token")

    private func authorized(_ headers: HTTPHeaders) throws -> Bool {
        authenticator.isAuthorized(try HTTPRequest(method: "GET", target: "/", headers: headers))
    }

    @Test("accepts the token in an Authorization header, with any case of the scheme, or in the cookie")
    func accepts() throws {
        #expect(try authorized(["Authorization": "Bearer s3cret-token"]))
        #expect(try authorized(["Authorization": "bearer s3cret-token"]))
        #expect(try authorized(["Cookie": "theme=dark; subledger_token=s3cret-token"]))
        #expect(try authorized(["Authorization": "Bearer wrong", "Cookie": "subledger_token=s3cret-token"]))
    }

    @Test("refuses a missing, partial, extended, altered or differently carried token")
    func refuses() throws {
        for headers: HTTPHeaders in [
            [:],
            ["Authorization": "Bearer "],
            ["Authorization": "Bearer s3cret-toke"],
            ["Authorization": "Bearer s3cret-tokenX"],
            ["Authorization": "Bearer s3cret-tokeN"],
            ["Authorization": "Bearer S3cret-token"],
            ["Authorization": "Basic s3cret-token"],
            ["Authorization": "s3cret-token"],
            ["Cookie": "other_token=s3cret-token"],
            ["Cookie": "subledger_token=s3cret"],
        ] {
            #expect(try !authorized(headers), "\(headers.fields)")
        }
    }

    @Test("two Authorization headers are refused with 400, even when one carries the token: the field may appear once, and one of them came from elsewhere")
    func twoAuthorizationHeaders() throws {
        var headers: HTTPHeaders = ["Authorization": "Bearer s3cret-token"]
        headers.add("Authorization", "Bearer wrong")
        let request = try HTTPRequest(method: "GET", target: "/", headers: headers)
        #expect(!authenticator.isAuthorized(request))
        let response = try #require(authenticator.check(request))
        #expect(response.status.code == 400)
        #expect(String(decoding: response.body, as: UTF8.self).contains("more than one Authorization header"))
    }

    @Test("constant-time comparison agrees with equality on every prefix, extension and single-byte change")
    func comparison() {
        let token = Array("abcdefgh".utf8)
        #expect(BearerTokenAuthenticator.constantTimeEquals(token, token))
        for length in 0..<token.count {
            #expect(!BearerTokenAuthenticator.constantTimeEquals(Array(token[..<length]), token))
        }
        #expect(!BearerTokenAuthenticator.constantTimeEquals(token + token, token))
        for index in token.indices {
            var changed = token
            changed[index] ^= 1
            #expect(!BearerTokenAuthenticator.constantTimeEquals(changed, token))
        }
    }

    @Test("the 401 response is a JSON error with a Bearer challenge")
    func unauthorizedResponse() throws {
        let response = try #require(authenticator.check(try HTTPRequest(method: "GET", target: "/")))
        #expect(response.status.code == 401)
        #expect(response.headers["WWW-Authenticate"]?.hasPrefix("Bearer") == true)
        #expect(String(decoding: response.body, as: UTF8.self).contains(#""error":"unauthorized""#))
    }

    @Test("loopback hosts are recognised, any other address is not")
    func loopback() {
        for host in ["127.0.0.1", "127.1.2.3", "::1", "[::1]", "localhost", "LOCALHOST", "::ffff:127.0.0.1"] {
            #expect(isLoopback(host: host), "\(host)")
        }
        for host in ["0.0.0.0", "::", "10.0.0.1", "192.168.1.1", "example.com", "", "128.0.0.1", "::2"] {
            #expect(!isLoopback(host: host), "\(host)")
        }
    }
}
