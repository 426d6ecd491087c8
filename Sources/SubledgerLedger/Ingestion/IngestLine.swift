/// One input line: a webhook body, a bare notification JWS, a bare signedTransactionInfo, or
/// (from the App Store Server API only) a bare signedRenewalInfo.
public struct IngestLine: Sendable {
    /// The most of a line the quarantine keeps; longer lines are kept cut there, flagged, so the
    /// quarantine stays bounded.
    public static let maxKeptBytes = 1 << 20

    /// JSON's whitespace: what a line may hold besides its message (a blank line holds nothing else).
    public static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    public var bytes: [UInt8]
    /// 1-based line number in its input.
    public var line: Int
    /// The file name, `-` for stdin, `http` for the webhook.
    public var source: String

    /// Whether a bare `signedRenewalInfo` is taken. It names no app (it has no `bundleId`), so
    /// any app's verifies: only one the ledger asked Apple for with this app's key is taken (and
    /// stored evidence checked again); from a file or the webhook, anyone's could be stored.
    public var takesRenewalInfo: Bool

    public static let webhookSource = "http"

    public init(bytes: [UInt8], line: Int, source: String, takesRenewalInfo: Bool = false) {
        self.bytes = bytes
        self.line = line
        self.source = source
        self.takesRenewalInfo = takesRenewalInfo
    }
}
