/// The API credentials or their files are missing or unusable; the message says what to run.
public enum APISetupError: Error, Sendable, CustomStringConvertible {
    case notConfigured
    case invalid(String)
    case storage(String)

    public var description: String {
        switch self {
        case .notConfigured:
            return "no App Store Server API credentials in this data directory; run `subledger init --bundle-id ID --api-key FILE.p8 --api-key-id KEY_ID --api-issuer-id ISSUER_UUID` (keys: App Store Connect → Users and Access → Integrations → In-App Purchase)"
        case .invalid(let message), .storage(let message):
            return message
        }
    }
}
