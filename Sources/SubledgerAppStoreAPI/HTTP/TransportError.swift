/// The request got no complete HTTP response.
public struct TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Connect or transfer took longer than allowed.
        case timeout
        /// Refused, reset, closed early or unresolvable: worth another try.
        case connection
        /// The server's certificate is not trusted or TLS failed: another try won't help.
        case tls
        /// libcurl refused the request itself (a bad URL or option).
        case request
        /// Aborted on purpose (`APICancellation`).
        case cancelled
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    /// Whether a retry can succeed.
    public var isTransient: Bool { kind == .timeout || kind == .connection }

    public var description: String {
        switch kind {
        case .tls: return "\(message) (check the server's certificate, or pass its CA with `subledger init --api-ca-file PEM`)"
        case .request, .cancelled: return message
        case .timeout, .connection: return message
        }
    }
}
