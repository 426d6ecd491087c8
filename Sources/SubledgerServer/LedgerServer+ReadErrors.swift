import SubledgerHTTP
import SubledgerLedger
import SubledgerLog
import SubledgerProjections

extension LedgerServer {
    /// A read route's handler, its errors answered alike on every read route: a query error is
    /// the client's (400, or 404 for what is not there); damage met in the log or the evidence
    /// is a 500 `ledger_corrupted` naming it; anything else stays the server's `internal_error`.
    func reading(_ handler: @escaping Router.Handler) -> Router.Handler {
        { request in
            do { return try handler(request) } catch { throw Self.readFailure(error) }
        }
    }

    /// The HTTP error a read's failure is answered with, or the failure itself when it is
    /// neither the client's nor damage.
    ///
    /// Damage is 500, not 503: 503 says "retry later", and a frame that fails its CRC stays
    /// damaged however often a client retries; an operator must run `subledger verify` and
    /// restore the segment from a backup.
    static func readFailure(_ error: any Error) -> any Error {
        if let unavailable = error as? ProjectionsUnavailable { return Self.unavailable(unavailable) }
        if let error = error as? QueryError {
            return HTTPError(error.kind == .notFound ? .notFound : .badRequest, code: error.code, detail: error.detail)
        }
        guard let problem = damage(in: error) else { return error }
        return HTTPError(.internalServerError, code: "ledger_corrupted",
                         detail: "the ledger is damaged: \(problem); run `subledger verify` for the full list, and restore the damaged segment from a backup")
    }

    /// A read refused while the projection database is rebuilt on open: 503 with `Retry-After`,
    /// since the rebuild takes seconds (17–27 s at 10 M events); the webhook stores notifications
    /// meanwhile, unless the dedup index is built first. A rebuild that failed stops the server
    /// (`serve`).
    static func unavailable(_ unavailable: ProjectionsUnavailable) -> HTTPError {
        HTTPError(.serviceUnavailable, code: unavailable.failure == nil ? "rebuilding" : "projections_unavailable", detail: unavailable.description,
                  headers: ["Retry-After": "5"])
    }

    /// A message refused while the dedup index is built from the logs on open: 503 with
    /// `Retry-After`, since the build takes seconds (about 40 s at 10 M messages); reads are
    /// answered meanwhile. A build that failed stops the server (`serve`).
    static func unavailable(_ unavailable: IngestionUnavailable) -> HTTPError {
        HTTPError(.serviceUnavailable, code: unavailable.failure == nil ? "indexing" : "ingestion_unavailable", detail: unavailable.description,
                  headers: ["Retry-After": "10"])
    }

    /// What `GET /readyz` answers while reads or messages are refused
    /// (`HTTPServer.Configuration.notReady`): without the detail a read gets, since anyone may ask
    /// it (a failure names paths).
    public var notReady: @Sendable () -> HTTPError? {
        { [ledger] in
            if let unavailable = ledger.projectionsUnavailable {
                var answer = Self.unavailable(unavailable)
                answer.detail = if unavailable.failure != nil {
                    "the projection database could not be rebuilt; the server's log says why"
                } else if unavailable.afterIndexBuild {
                    "the dedup index is being built from the logs, then the projection database is rebuilt; notifications are stored once the first is done, reads once the second is"
                } else {
                    "the projection database is being rebuilt; reads are answered once it is done, and notifications are stored meanwhile"
                }
                return answer
            }
            return ledger.ingestionUnavailable.map { unavailable in
                var answer = Self.unavailable(unavailable)
                answer.detail = unavailable.failure == nil
                    ? "the dedup index is being built from the logs; notifications are stored once it is done, and reads are answered meanwhile"
                    : "the dedup index could not be built; the server's log says why"
                return answer
            }
        }
    }

    /// The damaged place a read met, from the log's error or the projection's that wraps it.
    static func damage(in error: any Error) -> LogProblem? {
        switch error {
        case LogError.corrupted(let problem):
            return problem
        case let error as ProjectionError:
            guard case .logCorrupted(let problem) = error.kind else { return nil }
            return problem
        default:
            return nil
        }
    }
}
