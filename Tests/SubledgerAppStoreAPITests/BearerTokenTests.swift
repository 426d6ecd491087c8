import Foundation
import SubledgerAppStoreAPI
import SubledgerCrypto
import SubledgerJWS
import SubledgerTestSupport
import Testing

/// Apple's bearer token as Apple documents it, and reused until near its expiry.
@Suite("App Store Server API bearer token")
struct BearerTokenTests {
    static func parts(_ authorization: String) throws -> (header: [String: Any], claims: [String: Any], signingInput: [UInt8], signature: [UInt8]) {
        #expect(authorization.hasPrefix("Bearer "))
        let pieces = authorization.dropFirst("Bearer ".count).split(separator: ".").map(String.init)
        try #require(pieces.count == 3)
        func json(_ piece: String) throws -> [String: Any] {
            try JSONSerialization.jsonObject(with: Data(try #require(Base64URL.decode(Array(piece.utf8))))) as! [String: Any]
        }
        return (try json(pieces[0]), try json(pieces[1]), Array((pieces[0] + "." + pieces[1]).utf8), try #require(Base64URL.decode(Array(pieces[2].utf8))))
    }

    @Test("header alg ES256, kid, typ JWT; claims iss, iat, exp within 60 minutes, aud appstoreconnect-v1, bid; signed by the key")
    func tokenHasAppleShape() throws {
        let key = try ECPrivateKey(generating: .p256)
        let token = BearerToken(credentials: APICredentials(key: key, keyId: "ABC123", issuerId: "issuer-uuid", bundleId: "com.example.app"))
        let (header, claims, signingInput, signature) = try Self.parts(try token.authorization(now: 1_800_000_000))
        #expect(header as NSDictionary == ["alg": "ES256", "kid": "ABC123", "typ": "JWT"] as NSDictionary)
        #expect(claims["iss"] as? String == "issuer-uuid")
        #expect(claims["aud"] as? String == "appstoreconnect-v1")
        #expect(claims["bid"] as? String == "com.example.app")
        let issued = try #require(claims["iat"] as? Int)
        let expires = try #require(claims["exp"] as? Int)
        #expect(issued == 1_800_000_000)
        #expect(expires > issued && expires - issued <= 3600)
        #expect(key.publicKey.verifyES256(signature: signature, message: signingInput))
        let other = try ECPrivateKey(generating: .p256)
        #expect(!other.publicKey.verifyES256(signature: signature, message: signingInput))
    }

    @Test("one token serves until shortly before it expires, then a new one is signed")
    func tokenIsReusedUntilNearExpiry() throws {
        let token = BearerToken(credentials: APICredentials(key: try ECPrivateKey(generating: .p256), keyId: "K", issuerId: "I", bundleId: "B"))
        let first = try token.authorization(now: 1_800_000_000)
        #expect(try token.authorization(now: 1_800_000_000 + BearerToken.lifetime - BearerToken.renewalMargin - 1) == first)
        let renewed = try token.authorization(now: 1_800_000_000 + BearerToken.lifetime - BearerToken.renewalMargin)
        #expect(renewed != first)
        #expect(try Self.parts(renewed).claims["iat"] as? Int == 1_800_000_000 + Int(BearerToken.lifetime - BearerToken.renewalMargin))
    }
}

/// `init --api-key`: the key is copied owner-readable only and never written anywhere else.
@Suite("API credentials in the data directory")
struct APIConfigurationTests {
    @Test("the key is stored with mode 0600, api.json holds only the ids, and a non-key is refused")
    func keyIsStoredPrivately() throws {
        let directory = TemporaryDirectory()
        let key = try ECPrivateKey(generating: .p256)
        let pem = try key.pkcs8PEM()
        try Data(pem).write(to: URL(fileURLWithPath: directory.file("AuthKey.p8")))
        let configuration = try APIConfiguration.install(directory: directory.path, keyFile: directory.file("AuthKey.p8"), keyId: "KEY1",
                                                         issuerId: "ISSUER", baseURL: nil, caFile: nil)
        #expect(configuration.keyId == "KEY1")
        let stored = directory.file("appstore/AuthKey.p8")
        let attributes = try FileManager.default.attributesOfItem(atPath: stored)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        #expect(try Data(contentsOf: URL(fileURLWithPath: stored)) == Data(pem))
        let settings = try String(contentsOfFile: directory.file("appstore/api.json"), encoding: .utf8)
        #expect(!settings.contains("PRIVATE KEY"))
        #expect(try APIConfiguration.load(directory: directory.path) == configuration)

        try Data("not a key".utf8).write(to: URL(fileURLWithPath: directory.file("bad.p8")))
        #expect(throws: APISetupError.self) {
            try APIConfiguration.install(directory: directory.path, keyFile: directory.file("bad.p8"), keyId: "K", issuerId: "I", baseURL: nil, caFile: nil)
        }
        #expect(throws: APISetupError.self) {
            try APIConfiguration.install(directory: directory.path, keyFile: directory.file("AuthKey.p8"), keyId: "K", issuerId: "I", baseURL: "http://plain", caFile: nil)
        }
    }

    @Test("an RSA key in .p8 form is refused as not an ES256 key, not as something other than a PEM key")
    func rsaKeyIsNamed() throws {
        let directory = TemporaryDirectory()
        // A throwaway 512-bit key, made with `openssl genpkey -algorithm RSA`.
        let rsa = """
            -----BEGIN PRIVATE KEY-----
            MIIBVQIBADANBgkqhkiG9w0BAQEFAASCAT8wggE7AgEAAkEAtLgdZdH3UdMBOWRT
            99oqLWo1xenywFn41Q72mNrBDeTByh3/CGIw+baRlk7Jzu3uGtpGdwATXqsQVsGx
            0BCrjwIDAQABAkEArER1gYHMx+rj19mTUUhdvDzqVWbVSBZ75F0HJF4ieSJikY3t
            6BcTibRg/MKa1wBdlWfnIB2H27BP8p9S2jn7wQIhAO3iOaSYTPSprLbXXlbXRTFN
            FGMHEnrmn6ht/xvHZKaNAiEAwntpfGinVUo0Ga8XKsX68A1huAAFj1FLcsfylxv+
            cYsCIQCOqgX3+H7unHPAlBk365LLpnZ7jVo/6uAFmzJL7qEmYQIgX6w2iG0zZFHM
            r5Xi37flapIqsEnScl6bryuNu6iZ02ECIBjBZLxaElFz6Gu0l8Pe+qwGDsFHGpg3
            bpf5jAhJuRVz
            -----END PRIVATE KEY-----

            """
        try Data(rsa.utf8).write(to: URL(fileURLWithPath: directory.file("rsa.p8")))
        #expect {
            try APIConfiguration.install(directory: directory.path, keyFile: directory.file("rsa.p8"), keyId: "K", issuerId: "I", baseURL: nil, caFile: nil)
        } throws: { error in
            "\(error)".contains("is a key of type RSA, not an ES256 key")
        }
    }

    @Test("a new key keeps the base URL and CA not given again: a stand-in setup is not pointed at Apple's API")
    func newKeyKeepsTheRest() throws {
        let directory = TemporaryDirectory()
        let pem = try ECPrivateKey(generating: .p256).pkcs8PEM()
        try Data(pem).write(to: URL(fileURLWithPath: directory.file("AuthKey.p8")))
        try Data(AppleRootCertificates.rootCAG3).write(to: URL(fileURLWithPath: directory.file("ca.der")))
        _ = try APIConfiguration.install(directory: directory.path, keyFile: directory.file("AuthKey.p8"), keyId: "KEY1", issuerId: "ISSUER",
                                         baseURL: "https://127.0.0.1:8443", caFile: directory.file("ca.der"))
        let rotated = try APIConfiguration.install(directory: directory.path, keyFile: directory.file("AuthKey.p8"), keyId: "KEY2", issuerId: "ISSUER", baseURL: nil, caFile: nil)
        #expect(rotated.keyId == "KEY2")
        #expect(rotated.baseURL == "https://127.0.0.1:8443")
        #expect(rotated.caFile != nil)
        #expect(try APIConfiguration.load(directory: directory.path) == rotated)
    }
}
