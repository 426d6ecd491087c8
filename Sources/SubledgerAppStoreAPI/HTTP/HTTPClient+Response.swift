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
        /// read as no wait, it sent the 30 throttled retries back to back. HTTP's other form, a
        /// date (`Wed, 21 Oct 2015 07:28:00 GMT`, what a proxy in between may send), is read as
        /// such an instant.
        public func retryAfter(nowMillis: Int64) -> Double? {
            guard let text = headers["retry-after"]?.trimmingWhitespace else { return nil }
            guard let value = Int64(text) else {
                return Self.httpDate(text).flatMap { $0 > nowMillis ? Double($0 - nowMillis) / 1000 : nil }
            }
            guard value >= 0 else { return nil }
            guard value >= 100_000_000_000 else { return Double(value) }
            return value > nowMillis ? Double(value - nowMillis) / 1000 : nil
        }

        private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

        /// The instant (epoch milliseconds) of an IMF-fixdate (RFC 9110 §5.6.7), nil for other text.
        static func httpDate(_ text: some StringProtocol) -> Int64? {
            let words = text.split(separator: " ")
            guard words.count == 6, words[0].hasSuffix(","), words[5] == "GMT", let day = Int(words[1]), words[1].count == 2,
                  let month = months.firstIndex(where: { $0 == words[2] }), let year = Int(words[3]), words[3].count == 4
            else { return nil }
            let clock = words[4].split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
            guard clock.count == 3, let hour = clock[0], let minute = clock[1], let second = clock[2],
                  (0..<24).contains(hour), (0..<60).contains(minute), (0...60).contains(second), (1...31).contains(day)
            else { return nil }
            let dayNumber = UTCInstant.dayNumber(year: year, month: month + 1, day: day)
            // 31 Feb would be read as a day in March.
            guard UTCInstant.civilDate(ofDay: dayNumber) == (year, month + 1, day) else { return nil }
            return (dayNumber * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * 1000
        }
    }
}
