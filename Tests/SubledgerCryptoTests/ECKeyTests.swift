import SubledgerCrypto
import Testing

@Suite("EC keys and ES256")
struct ECKeyTests {
    let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJzaWduZWREYXRlIjoxfQ".utf8)

    @Test("an ES256 signature is 64 raw bytes that verify with the matching public key")
    func signVerify() throws {
        let key = try ECPrivateKey(generating: .p256)
        let signature = try key.signES256(message: message)
        #expect(signature.count == 64)
        #expect(key.publicKey.verifyES256(signature: signature, message: message))
    }

    @Test("ECDSA signing is randomized: two signatures of one message differ and both verify")
    func randomized() throws {
        let key = try ECPrivateKey(generating: .p256)
        let first = try key.signES256(message: message)
        let second = try key.signES256(message: message)
        #expect(first != second)
        #expect(key.publicKey.verifyES256(signature: first, message: message))
        #expect(key.publicKey.verifyES256(signature: second, message: message))
    }

    @Test("a signature fails for another message, another key, or any flipped bit")
    func rejectsAlterations() throws {
        let key = try ECPrivateKey(generating: .p256)
        let other = try ECPrivateKey(generating: .p256)
        let signature = try key.signES256(message: message)
        #expect(!key.publicKey.verifyES256(signature: signature, message: message + [0x20]))
        #expect(!other.publicKey.verifyES256(signature: signature, message: message))
        for bit in stride(from: 0, to: 512, by: 7) {
            var flipped = signature
            flipped[bit / 8] ^= 1 << UInt8(bit % 8)
            #expect(!key.publicKey.verifyES256(signature: flipped, message: message), "bit \(bit)")
        }
    }

    @Test("signatures that are not exactly 64 bytes are rejected, even when r and s are intact")
    func rejectsWrongLength() throws {
        let key = try ECPrivateKey(generating: .p256)
        let signature = try key.signES256(message: message)
        #expect(!key.publicKey.verifyES256(signature: Array(signature.prefix(63)), message: message))
        #expect(!key.publicKey.verifyES256(signature: signature + [0], message: message))
        #expect(!key.publicKey.verifyES256(signature: [0] + signature, message: message))
        #expect(!key.publicKey.verifyES256(signature: [], message: message))
    }

    @Test("scalars with leading zero bytes are left-padded to 32 bytes and still verify")
    func leftPadding() throws {
        let key = try ECPrivateKey(generating: .p256)
        // About 1 in 128 signatures has r or s below 2^248; 4000 tries miss with odds ~1e-14.
        var padded: [UInt8]?
        for _ in 0..<4000 {
            let signature = try key.signES256(message: message)
            if signature[0] == 0 || signature[32] == 0 {
                padded = signature
                break
            }
        }
        let signature = try #require(padded)
        #expect(signature.count == 64)
        #expect(key.publicKey.verifyES256(signature: signature, message: message))
    }

    @Test("ES256 needs P-256: a P-384 key cannot sign it and a P-384 public key never verifies it")
    func curveRestriction() throws {
        let p384 = try ECPrivateKey(generating: .p384)
        #expect(p384.curve == .p384)
        #expect(throws: CryptoError.self) { try p384.signES256(message: message) }
        let p256 = try ECPrivateKey(generating: .p256)
        let signature = try p256.signES256(message: message)
        #expect(!p384.publicKey.verifyES256(signature: signature, message: message))
    }

    @Test("a public key survives a round trip through its DER SubjectPublicKeyInfo")
    func subjectPublicKeyInfoRoundTrip() throws {
        let key = try ECPrivateKey(generating: .p256)
        let copy = try ECPublicKey(subjectPublicKeyInfo: key.publicKey.subjectPublicKeyInfo)
        #expect(copy == key.publicKey)
        #expect(copy.curve == .p256)
        #expect(copy != (try ECPrivateKey(generating: .p256)).publicKey)
        #expect(throws: CryptoError.self) { try ECPublicKey(subjectPublicKeyInfo: [0x30, 0x03, 0x02, 0x01, 0x00]) }
    }
}
