import Foundation
import SubledgerHTTP
import SubledgerProjections
import SubledgerServer
import Testing

@Suite("Event routes")
struct EventRoutesTests {
    @Test("GET /v1/events filters and pages with limit and next (a limit past the maximum is taken as the maximum), needs the token and names bad parameters; the stream is SSE behind the token")
    func eventsAndStream() throws {
        let fixture = try WebhookFixture(token: "t0ken")
        defer { fixture.server.ledger.close() }
        for index in 1...5 { #expect(try fixture.post(fixture.notification(index)).status == 200) }
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer t0ken")
        func get(_ target: String, authorized: Bool = true) throws -> (status: Int, json: [String: Any]) {
            try fixture.respond(HTTPRequest(method: "GET", target: target, headers: authorized ? headers : HTTPHeaders()))
        }
        #expect(try get("/v1/events", authorized: false).status == 401)
        #expect(try get("/v1/events/stream", authorized: false).status == 401)

        let all = try get("/v1/events?type=renewed")
        let positions = (all.json["events"] as? [[String: Any]])?.compactMap { $0["position"] as? String } ?? []
        #expect(positions.count == 5)
        #expect(all.json["next"] is NSNull)
        let first = try get("/v1/events?type=renewed&limit=2")
        #expect((first.json["events"] as? [[String: Any]])?.compactMap { $0["position"] as? String } == Array(positions.prefix(2)))
        let next = try #require(first.json["next"] as? String)
        let rest = try get("/v1/events?type=renewed&limit=1000000&after=\(next)")
        #expect((rest.json["events"] as? [[String: Any]])?.compactMap { $0["position"] as? String } == Array(positions.dropFirst(2)))
        #expect((try get("/v1/events?type=refunded").json["events"] as? [Any])?.isEmpty == true)
        // With the evidence a page is at most 64 events, whatever limit asks; next goes on.
        for index in 6...(EventQuery.rawPageLimit + 6) { #expect(try fixture.post(fixture.notification(index)).status == 200) }
        let raw = try get("/v1/events?raw=1&limit=1000")
        #expect((raw.json["events"] as? [[String: Any]])?.count == EventQuery.rawPageLimit)
        #expect((raw.json["events"] as? [[String: Any]])?.allSatisfy { $0["signedPayload"] is String } == true)
        #expect(raw.json["next"] is String)
        #expect((try get("/v1/events?limit=1000").json["events"] as? [Any])?.count ?? 0 > EventQuery.rawPageLimit)
        #expect(try get("/v1/events?type=weather").json["error"] as? String == "invalid_type")
        // One value given twice is refused, as the command line refuses a flag given twice; a filter's values combine.
        let twice = try get("/v1/events?limit=2&limit=3")
        #expect(twice.status == 400 && twice.json["error"] as? String == "invalid_limit" && (twice.json["detail"] as? String)?.contains("twice") == true)
        #expect(try get("/v1/events?type=renewed&type=refunded").status == 200)
        // Checked before anything is read, with the code a bad value of the name gets; the route's own names too.
        for (target, code) in [("/v1/reports/revenue?from=2026-01-01&to=2026-01-31&format=json&format=csv", "invalid_format"),
                               ("/v1/reports/revenue?from=2026-01-01&to=2026-01-31&atPosition=0&atPosition=0", "invalid_position"),
                               ("/v1/events/stream?after=0&after=1", "invalid_after")] {
            let answer = try get(target)
            #expect(answer.status == 400 && answer.json["error"] as? String == code, "\(target): \(answer.json)")
        }
        // The stream takes neither a page's limit nor reverify (an audit of stored events), and
        // its list of what it takes names neither.
        for name in ["limit=5", "reverify=1"] {
            let refused = try get("/v1/events/stream?\(name)")
            #expect(refused.status == 400 && refused.json["error"] as? String == "unknown_parameter", "\(name): \(refused.json)")
        }
        let unknown = try get("/v1/events/stream?zzz=1")
        let takes = try #require(unknown.json["detail"] as? String)
        #expect(unknown.status == 400 && takes.contains("type") && !takes.contains("limit") && !takes.contains("reverify"), "\(takes)")
        // A filter given no value is a value left out, not no filter (or no event).
        for (target, code) in [("type=", "invalid_type"), ("type=,", "invalid_type"), ("notificationType=", "invalid_notification_type"),
                               ("product=", "invalid_product"), ("customer=", "invalid_customer")] {
            let answer = try get("/v1/events?" + target)
            #expect(answer.status == 400 && answer.json["error"] as? String == code, "\(target): \(answer.json)")
        }
        #expect(try get("/v1/events?after=\(Int(next)! + 1)").json["error"] as? String == "invalid_after")
        // Positions no log reaches, up to the largest a position can be, took the server down.
        for far in ["9223372036854775807", "9223372036854775808", "18446744073709551615"] {
            #expect(try get("/v1/events?after=\(far)").json["error"] as? String == "invalid_after", "\(far)")
            var farHeaders = headers
            farHeaders.add("Last-Event-ID", far)
            let resumed = try fixture.respond(HTTPRequest(method: "GET", target: "/v1/events/stream", headers: farHeaders))
            #expect(resumed.status == 400 && resumed.json["error"] as? String == "invalid_last_event_id", "\(far)")
        }

        var streamHeaders = headers
        streamHeaders.add("Last-Event-ID", "banana")
        #expect(try fixture.respond(HTTPRequest(method: "GET", target: "/v1/events/stream", headers: streamHeaders)).json["error"] as? String == "invalid_last_event_id")
        // Empty is "no last id" in the event-stream standard: the stream starts from `after`.
        var emptyHeaders = headers
        emptyHeaders.add("Last-Event-ID", "")
        #expect(try fixture.respond(HTTPRequest(method: "GET", target: "/v1/events/stream", headers: emptyHeaders)).status == 200)
        let stream = try fixture.server.router.respond(to: HTTPRequest(method: "GET", target: "/v1/events/stream?type=renewed", headers: headers))
        #expect(stream.status.code == 200)
        #expect(stream.headers["Content-Type"] == "text/event-stream")
        #expect(stream.stream != nil)
    }
}
