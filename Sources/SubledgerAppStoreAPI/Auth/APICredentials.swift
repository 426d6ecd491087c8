import SubledgerCrypto

/// What App Store Connect issues for the App Store Server API: an ES256 key (the `.p8`), its key
/// id and the team's issuer id, plus the app's bundle id that every token names.
public struct APICredentials: Sendable {
    public var key: ECPrivateKey
    public var keyId: String
    public var issuerId: String
    public var bundleId: String

    public init(key: ECPrivateKey, keyId: String, issuerId: String, bundleId: String) {
        self.key = key
        self.keyId = keyId
        self.issuerId = issuerId
        self.bundleId = bundleId
    }
}
