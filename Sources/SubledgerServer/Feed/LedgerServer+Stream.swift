import SubledgerHTTP
import SubledgerLog
import SubledgerProjections

extension LedgerServer {
    /// `GET /v1/events/stream`: the filters of `/v1/events`; `Last-Event-ID` (a reconnecting
    /// browser's) takes precedence over `after`. Parameters are checked before the stream opens,
    /// so a bad one is a 400, not a stream that closes.
    func stream(_ request: HTTPRequest) throws -> HTTPResponse {
        let parameters = HTTPQuerySource(request.query)
        try parameters.requireOnce()
        // The route of pages takes a limit; a stream follows until its client hangs up.
        guard request.query["limit"] == nil else {
            throw QueryError(kind: .badParameter, code: "unknown_parameter", detail: "the stream takes no limit: it sends every matching event until the client closes it; GET /v1/events pages with limit")
        }
        // Verifying each event's evidence again is an audit of stored events, not of a live feed.
        guard request.query["reverify"] == nil else {
            throw QueryError(kind: .badParameter, code: "unknown_parameter", detail: "the stream takes no reverify: it sends events as they are acknowledged; GET /v1/events?reverify=1 verifies stored events' evidence again")
        }
        var query = try EventQuery(parameters)
        try parameters.requireEveryNameAsked(except: ["limit", "reverify"])
        // Empty means no last id (the event-stream standard): the stream starts from `after`.
        var resumed = false
        if let resume = request.headers["Last-Event-ID"], !resume.isEmpty {
            guard let position = LogPosition(resume) else {
                throw QueryError(kind: .badParameter, code: "invalid_last_event_id", detail: "Last-Event-ID is an event's position (its id:), not \(resume)")
            }
            query.after = position
            resumed = true
        }
        query.limit = nil
        if let after = query.after {
            // A position that is no record's fails at once rather than in the stream, named as
            // the client gave it.
            do { try ledger.read { try $0.checkAfter(after) } } catch let error as QueryError where resumed {
                throw QueryError(kind: error.kind, code: "invalid_last_event_id", detail: "Last-Event-ID \(after) is not an event's position: \(error.detail)")
            }
        }
        let feed = self.feed
        let subscribed = query
        return .eventStream { stream in
            stream.send(Array(": subledger event feed\n\n".utf8))
            feed.subscribe(stream, subscribed)
        }
    }
}
