import SubledgerHTTP
import SubledgerLedger
import SubledgerLog
import SubledgerProjections

extension LedgerServer {
    /// `GET /v1/head[?at=POSITION]`: as `head --json`. It reads the logs, not the projections,
    /// so it covers every acknowledged event.
    func head(_ request: HTTPRequest) throws -> HTTPResponse {
        // `?at-position=` or `?position=` answered today's head to an auditor asking for a past one.
        // Every problem with `at` is `invalid_position`, as a position no event starts at is.
        let parameters = HTTPQuerySource(request.query)
        let given = parameters.values("at")
        try parameters.requireEveryNameAsked()
        guard given.count <= 1 else {
            throw HTTPError(.badRequest, code: "invalid_position", detail: "at is given more than once; give the one position the digest is to cover")
        }
        var position: LogPosition?
        if let text = given.first {
            guard let parsed = LogPosition(text) else {
                throw HTTPError(.badRequest, code: "invalid_position", detail: "at is a log position (a decimal number), not \(text)")
            }
            position = parsed
        }
        return .json(try LedgerHead.compute(directory: ledger.directory, at: position, cache: headCache).json.serialized())
    }
}
