/// Why signed App Store data was rejected, and what to check.
///
/// `reason` is the stable machine-readable code of the contract (its raw value appears in
/// `ingest --json` rejections and HTTP 422 bodies); `detail` is for the person reading it.
public struct VerificationError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Reason: String, Sendable, CaseIterable {
        case malformedJSON = "malformed_json"
        case notJWS = "not_jws"
        case unsupportedAlgorithm = "unsupported_algorithm"
        case chainInvalid = "chain_invalid"
        case chainUntrusted = "chain_untrusted"
        case certificateExpired = "certificate_expired"
        case missingMarkerOID = "missing_marker_oid"
        case signatureInvalid = "signature_invalid"
        case bundleMismatch = "bundle_mismatch"
        case appAppleIDMismatch = "app_apple_id_mismatch"
        case environmentNotAccepted = "environment_not_accepted"
        case payloadInvalid = "payload_invalid"
    }

    public let reason: Reason
    public let detail: String
    /// The message's signatures verified under a configured root or Apple's own: only the App
    /// Store could have sent it (it failed an app check, or the ledger lacks Apple's root). The
    /// quarantine keeps such bodies from the webhook, which anyone may post to, apart from the
    /// ones anybody could have made.
    public var signedByAppStore = false

    public init(_ reason: Reason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }

    public var description: String {
        "\(reason.rawValue): \(detail)"
    }
}
