import SubledgerCore
import SubledgerCrypto
import Synchronization

/// Apple's bearer JWT for the App Store Server API: header `alg` ES256, `kid`, `typ` JWT; claims
/// `iss`, `iat`, `exp`, `aud` `appstoreconnect-v1`, `bid`. One token serves every request until
/// it is near its expiry, so signing never sits on the request path.
public final class BearerToken: Sendable {
    /// Seconds a token is valid; Apple refuses tokens whose `exp` is over 60 minutes after `iat`.
    public static let lifetime: Int64 = 20 * 60
    /// A token is replaced this many seconds before it expires, so none expires in flight.
    public static let renewalMargin: Int64 = 5 * 60

    private let credentials: APICredentials
    private let cached = Mutex<(token: String, expires: Int64)?>(nil)

    public init(credentials: APICredentials) {
        self.credentials = credentials
    }

    /// The ids the token names (never the key): what a user compares with App Store Connect
    /// when Apple refuses them.
    var claims: String {
        "key id \(credentials.keyId), issuer id \(credentials.issuerId), bundle id \(credentials.bundleId)"
    }

    /// The `Authorization` value for a request sent at `now` (epoch seconds).
    public func authorization(now: Int64) throws(CryptoError) -> String {
        if let current = cached.withLock({ $0 }), current.expires - Self.renewalMargin > now {
            return "Bearer " + current.token
        }
        let token = try Self.sign(credentials, issuedAt: now)
        cached.withLock { $0 = (token, now + Self.lifetime) }
        return "Bearer " + token
    }

    /// A fresh compact JWS of the claims, issued at `issuedAt` (epoch seconds).
    public static func sign(_ credentials: APICredentials, issuedAt: Int64) throws(CryptoError) -> String {
        let header = JSON.object([("alg", .string("ES256")), ("kid", .string(credentials.keyId)), ("typ", .string("JWT"))])
        let claims = JSON.object([
            ("iss", .string(credentials.issuerId)), ("iat", .integer(issuedAt)), ("exp", .integer(issuedAt + lifetime)),
            ("aud", .string("appstoreconnect-v1")), ("bid", .string(credentials.bundleId)),
        ])
        var signingInput = Base64URL.encode(header.bytes)
        signingInput.append(UInt8(ascii: "."))
        signingInput += Base64URL.encode(claims.bytes)
        let signature = try credentials.key.signES256(message: signingInput)
        signingInput.append(UInt8(ascii: "."))
        signingInput += Base64URL.encode(signature)
        return String(decoding: signingInput, as: UTF8.self)
    }
}
