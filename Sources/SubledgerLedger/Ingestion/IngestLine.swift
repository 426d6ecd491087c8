import SubledgerJWS

/// One input line: a webhook body, a bare notification JWS, or a bare signedTransactionInfo.
public struct IngestLine: Sendable {
    public var bytes: [UInt8]
    /// 1-based line number in its input.
    public var line: Int
    /// The file name, `-` for stdin, `http` for the webhook.
    public var source: String

    public static let webhookSource = "http"

    /// Whether a line rejected for `reason` is kept in quarantine. A webhook body that is not
    /// JSON or not a JWS is the sender's mistake, answered 400 and not kept (the contract keeps
    /// what failed verification): the route is open to anyone, and kept bodies of up to 1 MiB
    /// let anyone fill the disk.
    func isQuarantined(after reason: VerificationError.Reason) -> Bool {
        source != Self.webhookSource || (reason != .malformedJSON && reason != .notJWS)
    }

    public init(bytes: [UInt8], line: Int, source: String) {
        self.bytes = bytes
        self.line = line
        self.source = source
    }
}
