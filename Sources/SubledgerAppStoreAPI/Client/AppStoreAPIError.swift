/// Why an App Store Server API call failed, saying what to do about it.
public enum AppStoreAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 401 or 403: Apple refused the bearer token.
    case credentialsRejected(status: Int, endpoint: String, sent: String)
    /// Any other 4xx: the request itself was refused (an unknown transaction id, a window older
    /// than Apple keeps, …), with Apple's error code and message when it gave them.
    case rejected(status: Int, errorCode: Int?, message: String?, endpoint: String)
    /// 5xx, 429, timeouts or resets until the retry budget was spent; `status` is the last HTTP
    /// status answered, if any was.
    case gaveUp(endpoint: String, attempts: Int, last: String, status: Int?)
    /// No retry can help: TLS refused, or libcurl refused the request.
    case transport(endpoint: String, TransportError)
    /// A 2xx answer that is not the JSON Apple documents.
    case invalidResponse(endpoint: String, detail: String)
    /// The bearer token could not be signed with the configured key.
    case signing(String)
    /// Stopped on purpose (`APICancellation`: the server is shutting down).
    case cancelled(endpoint: String)

    /// What to do about Apple's errors that a person can act on, after Apple's own words.
    static let remedies: [Int: String] = [
        4_040_010: "; Apple does not know this id in this environment: check it is a transaction of this app and that `--environment` is where it was bought (a Sandbox purchase is not found in Production, and Apple deletes a tester's Sandbox purchases when their history is cleared)",
        4_000_012: "; Apple keeps 180 days of notification history: give a later --since",
    ]

    public var description: String {
        switch self {
        case .credentialsRejected(let status, let endpoint, let sent):
            return "Apple refused the API credentials (HTTP \(status) from \(endpoint)), sent as \(sent): the API key (.p8), its key id or the issuer id is wrong, the bundle id is not the app's (`subledger init --bundle-id`), or the key has no access to this app, or this host's clock is off by minutes (the token is dated by it: check NTP); check them in App Store Connect (Users and Access → Integrations → In-App Purchase) and run `subledger init --api-key FILE.p8 --api-key-id ID --api-issuer-id UUID` again"
        case .rejected(let status, let errorCode, let message, let endpoint):
            let apple = [errorCode.map { "errorCode \($0)" }, message].compactMap { $0 }.joined(separator: ": ")
            return "\(endpoint) answered HTTP \(status)" + (apple.isEmpty ? "" : " (\(apple))") + (errorCode.flatMap { Self.remedies[$0] } ?? "")
        case .gaveUp(let endpoint, let attempts, _, 429?):
            // Apple answers, and asks for patience: the waits it asked for are spent.
            return "Apple throttled \(endpoint) (HTTP 429, rate limit) on \(attempts) requests in a row, with the waits it asked for between them: try again later"
        case .gaveUp(let endpoint, let attempts, let last, _):
            return "\(endpoint) failed \(attempts) times, last: \(last); Apple or the network is not answering: try again later"
        case .transport(let endpoint, let error):
            return "\(endpoint): \(error)"
        case .invalidResponse(let endpoint, let detail):
            return "\(endpoint) answered with something that is not Apple's response: \(detail)"
        case .signing(let detail):
            return "cannot sign the API token with the configured key: \(detail); run `subledger init --api-key FILE.p8` with the key from App Store Connect"
        case .cancelled(let endpoint):
            return "\(endpoint): cancelled (shutting down); what was stored is durable"
        }
    }

    /// The HTTP status, when Apple answered one.
    public var status: Int? {
        switch self {
        case .credentialsRejected(let status, _, _), .rejected(let status, _, _, _): return status
        case .gaveUp(_, _, _, let status): return status
        case .transport, .invalidResponse, .signing, .cancelled: return nil
        }
    }
}
