import COpenSSL

/// A libcrypto operation failed, or its input was not what it expects.
///
/// `message` names the operation and carries OpenSSL's own text from its error queue
/// (`ERR_get_error` + `ERR_error_string_n`); raw error codes never leave this module.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What a caller may tell its user apart from a failure.
    public enum Reason: Sendable, Equatable {
        case failed
        /// The bytes are not a key in PEM form.
        case notPEM
        /// A key of another kind (`keyType`, as OpenSSL names it: RSA, ED25519, …).
        case notEllipticCurve(keyType: String)
    }

    public let reason: Reason
    public let message: String

    public init(_ message: String, reason: Reason = .failed) {
        self.message = message
        self.reason = reason
    }

    public var description: String { message }

    /// Builds an error for the failed `operation`, draining OpenSSL's per-thread error queue so
    /// stale entries never leak into a later, unrelated failure.
    static func openSSL(_ operation: String, reason: Reason = .failed) -> CryptoError {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            let text = buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            reasons.append(text)
        }
        if reasons.isEmpty {
            return CryptoError("\(operation) failed", reason: reason)
        }
        return CryptoError("\(operation) failed: \(reasons.joined(separator: "; "))", reason: reason)
    }

    /// Discards queued OpenSSL errors after a failure we handle ourselves (e.g. a signature that
    /// does not verify), so they are not reported by the next `openSSL(_:)`.
    static func clearQueue() {
        ERR_clear_error()
    }
}
