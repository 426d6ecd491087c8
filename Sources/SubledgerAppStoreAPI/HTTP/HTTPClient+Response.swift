import SubledgerCore

extension HTTPClient {
    /// A complete HTTP response: status, headers (names lowercased) and body.
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]

        public init(status: Int, headers: [String: String] = [:], body: [UInt8] = []) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// The seconds `Retry-After` asks to wait at `nowMillis`. The App Store Server API gives
        /// the UNIX time in milliseconds at which to retry; HTTP's own form, delta-seconds, is
        /// read too (a value below 10^11 is no instant since 1973). Read as seconds, Apple's
        /// value asked for a wait far past any cap: every throttle waited the cap out. An instant
        /// already past here (this host's clock ahead of Apple's) gives nil, for the backoff:
        /// read as no wait, it sent the 30 throttled retries back to back.
        public func retryAfter(nowMillis: Int64) -> Double? {
            guard let value = headers["retry-after"].flatMap({ Int64($0.trimmingWhitespace) }), value >= 0 else { return nil }
            guard value >= 100_000_000_000 else { return Double(value) }
            return value > nowMillis ? Double(value - nowMillis) / 1000 : nil
        }
    }
}
