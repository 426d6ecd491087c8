/// How hard a request is retried. 429 has its own, larger budget: throttling is Apple asking
/// to slow down, not a failure.
public struct RetryPolicy: Sendable {
    /// Attempts per request for 5xx, timeouts and resets (the first included).
    public var maximumAttempts: Int
    /// 429 answers waited out per request before giving up.
    public var maximumThrottledWaits: Int
    /// The first backoff in seconds; it doubles per retry up to `maximumBackoff`.
    public var initialBackoff: Double
    public var maximumBackoff: Double
    /// A `Retry-After` longer than this is cut to it, so one answer cannot stall a run for hours.
    public var maximumRetryAfter: Double

    public init(maximumAttempts: Int = 5, maximumThrottledWaits: Int = 30, initialBackoff: Double = 0.5, maximumBackoff: Double = 30, maximumRetryAfter: Double = 300) {
        self.maximumAttempts = maximumAttempts
        self.maximumThrottledWaits = maximumThrottledWaits
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// Seconds to wait after the `throttled`th 429 of a request: what its `Retry-After` asks,
    /// up to `maximumRetryAfter` and at least `initialBackoff` (a `Retry-After: 0` sent thirty
    /// requests in a tenth of a second), else the backoff.
    func throttleWait(retryAfter: Double?, throttled: Int, jitter: Double) -> Double {
        guard let retryAfter else { return backoff(retry: throttled, jitter: jitter) }
        return max(initialBackoff, min(retryAfter, maximumRetryAfter))
    }

    /// Seconds to wait before retry number `retry` (1 for the first), with up to 25% jitter
    /// subtracted so that clients started together spread out.
    func backoff(retry: Int, jitter: Double) -> Double {
        let base = min(maximumBackoff, initialBackoff * Double(1 << min(retry - 1, 20)))
        return base * (1 - 0.25 * jitter)
    }
}
