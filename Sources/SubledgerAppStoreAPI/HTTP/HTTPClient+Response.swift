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

        /// `Retry-After` in seconds, when given as delta-seconds (Apple's form).
        public var retryAfterSeconds: Int? {
            headers["retry-after"].flatMap { Int($0.trimmingWhitespace) }.flatMap { $0 >= 0 ? $0 : nil }
        }
    }
}
