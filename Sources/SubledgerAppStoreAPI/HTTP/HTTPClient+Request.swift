extension HTTPClient {
    /// One HTTPS request as the API client builds it.
    public struct Request: Sendable {
        public enum Method: String, Sendable {
            case get = "GET"
            case post = "POST"
            case put = "PUT"
        }

        public var method: Method
        public var url: String
        public var headers: [(name: String, value: String)]
        public var body: [UInt8]?

        public init(method: Method, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
        }
    }
}
