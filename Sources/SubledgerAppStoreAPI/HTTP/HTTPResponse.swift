/// A complete HTTP response: status, headers (names lowercased) and body.
public struct HTTPResponse: Sendable {
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
        headers["retry-after"].flatMap { Int($0.trimmingSpaces) }.flatMap { $0 >= 0 ? $0 : nil }
    }
}

extension String {
    /// Without leading and trailing whitespace (a header line's `\r\n` is one Character).
    var trimmingSpaces: Substring {
        var text = self[...]
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return text
    }
}
