import FoundationEssentials
import SubledgerLedger

/// The App Store Server API endpoints Subledger uses, over one `HTTPClient` (so one reused
/// connection), with Apple's bearer token and the retry rules of `RetryPolicy`.
///
/// One request at a time, like its `HTTPClient`.
public final class AppStoreServerAPIClient {
    public static let productionURL = "https://api.storekit.itunes.apple.com"
    public static let sandboxURL = "https://api.storekit-sandbox.itunes.apple.com"

    public let baseURL: String
    let http: HTTPClient
    let token: BearerToken
    let retry: RetryPolicy
    let metrics: APIMetrics
    let cancellation: APICancellation
    /// Waits between retries; tests make it record instead of sleep.
    let sleep: @Sendable (Double) -> Void
    /// Told of every wait before a retry (one line), so a long one is not silent.
    let notice: @Sendable (String) -> Void
    private var random = SystemRandomNumberGenerator()
    /// HTTP requests sent so far, retries and failures included.
    public private(set) var requestsSent = 0

    /// - Parameter sleep: the waits between retries; by default real ones that `cancellation` ends.
    public init(baseURL: String, credentials: APICredentials, settings: HTTPSettings = HTTPSettings(), retry: RetryPolicy = RetryPolicy(),
                metrics: APIMetrics = APIMetrics(), cancellation: APICancellation = APICancellation(),
                sleep: (@Sendable (Double) -> Void)? = nil, notice: @escaping @Sendable (String) -> Void = { _ in }) throws(TransportError) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        http = try HTTPClient(settings: settings, isCancelled: { cancellation.isCancelled })
        token = BearerToken(credentials: credentials)
        self.retry = retry
        self.metrics = metrics
        self.cancellation = cancellation
        self.sleep = sleep ?? cancellation.sleep
        self.notice = notice
    }

    /// Apple's base URL for an environment: Sandbox has its own host, every other one uses
    /// production's.
    public static func baseURL(for environment: String) -> String {
        environment == "Sandbox" ? sandboxURL : productionURL
    }

    /// Sends one request, retrying what Apple or the network says can be retried, and decodes a
    /// 2xx body as `Response`.
    func call<Response: Decodable>(_ endpoint: String, _ method: HTTPClient.Request.Method, path: String, query: [(String, String)] = [],
                                   body: [UInt8]? = nil, as: Response.Type) throws(AppStoreAPIError) -> Response {
        let bytes = try send(endpoint, method, path: path, query: query, body: body)
        do {
            return try JSONDecoder().decode(Response.self, from: Data(bytes))
        } catch {
            throw .invalidResponse(endpoint: endpoint, detail: Self.describe(error, body: bytes))
        }
    }

    /// What is wrong with a 2xx answer, and how it begins: Foundation's own description of a
    /// decoding error is a dump of its coding path and context, which told an operator nothing.
    static func describe(_ error: any Error, body: [UInt8]) -> String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? "." + $0.stringValue }.joined().drop { $0 == "." }.description
        }
        let what: String
        switch error as? DecodingError {
        case .dataCorrupted(let context) where context.codingPath.isEmpty: what = "not JSON"
        case .dataCorrupted(let context): what = "\(path(context)) holds a value it cannot"
        case .keyNotFound(let key, let context): what = "no \((path(context).isEmpty ? "" : path(context) + ".") + key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context): what = "\(path(context)) holds the wrong type: \(context.debugDescription)"
        default: what = "\(error)"
        }
        let start = String(decoding: body.prefix(120), as: UTF8.self).filter { !$0.isNewline }
        return "the answer is not the JSON Apple documents (\(what)); it begins: \(start.isEmpty ? "(empty)" : start)\(body.count > 120 ? "…" : "")"
    }

    func send(_ endpoint: String, _ method: HTTPClient.Request.Method, path: String, query: [(String, String)], body: [UInt8]?) throws(AppStoreAPIError) -> [UInt8] {
        let url = baseURL + path + (query.isEmpty ? "" : "?" + query.map { "\($0)=\(Self.percentEncoded($1))" }.joined(separator: "&"))
        var attempts = 0
        var throttledWaits = 0
        var lastStatus: Int?
        while true {
            guard !cancellation.isCancelled else { throw .cancelled(endpoint: endpoint) }
            attempts += 1
            let authorization: String
            do { authorization = try token.authorization(now: WallTime.nowMillis() / 1000) } catch { throw .signing(error.message) }
            var headers = [(name: "Authorization", value: authorization), (name: "Accept", value: "application/json"), (name: "User-Agent", value: "subledger")]
            if body != nil { headers.append((name: "Content-Type", value: "application/json")) }
            let response: HTTPClient.Response
            requestsSent += 1
            do {
                response = try http.send(HTTPClient.Request(method: method, url: url, headers: headers, body: body))
            } catch {
                if error.kind == .cancelled { throw .cancelled(endpoint: endpoint) }
                metrics.request(endpoint, status: 0)
                guard error.isTransient else { throw .transport(endpoint: endpoint, error) }
                guard attempts < retry.maximumAttempts else {
                    throw .gaveUp(endpoint: endpoint, attempts: attempts, last: error.description, status: lastStatus)
                }
                wait(retry.backoff(retry: attempts, jitter: Double.random(in: 0..<1, using: &random)),
                     "\(endpoint) got no answer (\(error.kind)), retrying", attempt: attempts, of: retry.maximumAttempts)
                continue
            }
            metrics.request(endpoint, status: response.status)
            lastStatus = response.status
            switch response.status {
            case 200..<300:
                return response.body
            case 429:
                throttledWaits += 1
                attempts -= 1
                guard throttledWaits <= retry.maximumThrottledWaits else {
                    throw .gaveUp(endpoint: endpoint, attempts: throttledWaits, last: "HTTP 429 (rate limit)", status: 429)
                }
                let wait = retry.throttleWait(retryAfter: response.retryAfter(nowMillis: WallTime.nowMillis()), throttled: throttledWaits,
                                              jitter: Double.random(in: 0..<1, using: &random))
                metrics.throttled(seconds: wait)
                self.wait(wait, "throttled by Apple (HTTP 429)", attempt: throttledWaits, of: retry.maximumThrottledWaits)
            case 401, 403:
                throw .credentialsRejected(status: response.status, endpoint: endpoint, sent: token.claims)
            case 500..<600:
                guard attempts < retry.maximumAttempts else {
                    throw .gaveUp(endpoint: endpoint, attempts: attempts, last: "HTTP \(response.status)", status: response.status)
                }
                wait(retry.backoff(retry: attempts, jitter: Double.random(in: 0..<1, using: &random)),
                     "\(endpoint) answered HTTP \(response.status), retrying", attempt: attempts, of: retry.maximumAttempts)
            default:
                let apple = try? JSONDecoder().decode(AppleErrorBody.self, from: Data(response.body))
                // Apple's errors that say to try again (not yet found, a passing fault) are retried
                // as a 5xx is; they were taken as final, an id backfilled minutes after its
                // purchase left as failed.
                if let code = apple?.errorCode, Self.retryableErrorCodes.contains(code), attempts < retry.maximumAttempts {
                    wait(retry.backoff(retry: attempts, jitter: Double.random(in: 0..<1, using: &random)),
                         "\(endpoint) answered HTTP \(response.status) (errorCode \(code), which Apple says to retry), retrying", attempt: attempts, of: retry.maximumAttempts)
                    continue
                }
                throw .rejected(status: response.status, errorCode: apple?.errorCode, message: apple?.errorMessage, endpoint: endpoint)
            }
        }
    }

    /// Apple's retryable errors: account, app and original transaction id not found yet
    /// (4040002, 4040004, 4040006), and a general internal error (5000001).
    static let retryableErrorCodes: Set<Int> = [4_040_002, 4_040_004, 4_040_006, 5_000_001]

    /// Says why and how long it waits, then waits.
    private func wait(_ seconds: Double, _ why: String, attempt: Int, of attempts: Int) {
        let tenths = Int((seconds * 10).rounded())
        notice("\(why), waiting \(tenths / 10)\(tenths % 10 == 0 ? "" : ".\(tenths % 10)")s, attempt \(attempt) of \(attempts)")
        sleep(seconds)
    }

    /// RFC 3986 unreserved characters stay; everything else is %-encoded (pagination tokens
    /// and revisions are opaque and may hold `+`, `/` or `=`).
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(UnicodeScalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF")
                out += "%" + String(hex[Int(byte >> 4)]) + String(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}
