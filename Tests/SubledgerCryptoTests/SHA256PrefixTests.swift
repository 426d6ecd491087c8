import SubledgerCrypto
import Testing

@Suite("SHA-256 over a shared prefix")
struct SHA256PrefixTests {
    /// Long enough to cross several 64-byte blocks on both sides of every split.
    let message = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

    @Test("prefix then suffix hashes to the digest of the whole message, wherever the split falls", arguments: [0, 1, 55, 63, 64, 65, 128, 200, 300])
    func split(_ at: Int) {
        let prefix = message[..<at].withUnsafeBytes { SHA256Prefix($0) }
        let digest = message[at...].withUnsafeBytes { prefix.hash(continuingWith: $0) }
        #expect(digest == SHA256.hash(message))
    }

    @Test("one prefix serves many suffixes: hashing does not move its state")
    func reusable() {
        let prefix = message[..<100].withUnsafeBytes { SHA256Prefix($0) }
        for end in [100, 150, 300, 150] {
            let digest = message[100..<end].withUnsafeBytes { prefix.hash(continuingWith: $0) }
            #expect(digest == SHA256.hash(Array(message[..<end])))
        }
    }

    @Test("an ES256 signature verifies against the digest of its message, and not against another")
    func verifiesDigest() throws {
        let key = try ECPrivateKey(generating: .p256)
        let signature = try key.signES256(message: message)
        let prefix = message[..<70].withUnsafeBytes { SHA256Prefix($0) }
        let digest = message[70...].withUnsafeBytes { prefix.hash(continuingWith: $0) }
        #expect(signature.withUnsafeBytes { s in digest.withUnsafeBytes { key.publicKey.verifyES256(signature: s, digest: $0) } })
        let other = SHA256.hash(message + [0])
        #expect(!signature.withUnsafeBytes { s in other.withUnsafeBytes { key.publicKey.verifyES256(signature: s, digest: $0) } })
        #expect(!signature.withUnsafeBytes { s in Array(digest.prefix(31)).withUnsafeBytes { key.publicKey.verifyES256(signature: s, digest: $0) } })
    }
}
