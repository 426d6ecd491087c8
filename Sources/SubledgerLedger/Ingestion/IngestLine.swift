/// One input line: a webhook body, a bare notification JWS, or a bare signedTransactionInfo.
public struct IngestLine: Sendable {
    public var bytes: [UInt8]
    /// 1-based line number in its input.
    public var line: Int
    /// The file name, `-` for stdin, `http` for the webhook.
    public var source: String

    public static let webhookSource = "http"

    public init(bytes: [UInt8], line: Int, source: String) {
        self.bytes = bytes
        self.line = line
        self.source = source
    }
}
