import Dispatch
import SubledgerCrypto
import Synchronization
import Testing

/// `ES256KeyTable` is the verification every App Store message goes through, so it must accept
/// exactly the signatures libcrypto's own ECDSA verification (`ECPublicKey.verifyES256`) accepts.
@Suite("ES256 with a key's multiples precomputed")
struct ES256KeyTableTests {
    /// P-256's group order n, big-endian.
    static let order: [UInt8] = [
        0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        0xBC, 0xE6, 0xFA, 0xAD, 0xA7, 0x17, 0x9E, 0x84, 0xF3, 0xB9, 0xCA, 0xC2, 0xFC, 0x63, 0x25, 0x51,
    ]

    /// Both verifications of `signature` over `digest`, table first.
    func verdicts(_ table: ES256KeyTable, _ key: ECPublicKey, _ signature: [UInt8], _ digest: [UInt8]) -> (table: Bool, libcrypto: Bool) {
        signature.withUnsafeBytes { signature in
            digest.withUnsafeBytes { digest in
                (table.verify(signature: signature, digest: digest), key.verifyES256(signature: signature, digest: digest))
            }
        }
    }

    /// n − value, for 32-byte big-endian values below n.
    static func orderMinus(_ value: ArraySlice<UInt8>) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 32)
        var borrow = 0
        for index in stride(from: 31, through: 0, by: -1) {
            var difference = Int(order[index]) - Int(value[value.startIndex + index]) - borrow
            borrow = difference < 0 ? 1 : 0
            if difference < 0 { difference += 256 }
            result[index] = UInt8(difference)
        }
        return result
    }

    @Test("over many keys and messages, the table accepts the valid signatures and rejects every altered one, as libcrypto does")
    func agreesWithLibcrypto() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<4 {
            let key = try ECPrivateKey(generating: .p256)
            let table = try ES256KeyTable(key.publicKey)
            for _ in 0..<25 {
                let message = (0..<Int.random(in: 1...600, using: &generator)).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let digest = SHA256.hash(message)
                let signature = try key.signES256(message: message)
                let valid = verdicts(table, key.publicKey, signature, digest)
                #expect(valid.table && valid.libcrypto)
                var flipped = signature
                let bit = Int.random(in: 0..<512, using: &generator)
                flipped[bit / 8] ^= 1 << UInt8(bit % 8)
                let alteredSignature = verdicts(table, key.publicKey, flipped, digest)
                #expect(!alteredSignature.table && !alteredSignature.libcrypto, "bit \(bit) of the signature")
                var otherDigest = digest
                otherDigest[Int.random(in: 0..<32, using: &generator)] ^= 0x80
                let alteredDigest = verdicts(table, key.publicKey, signature, otherDigest)
                #expect(!alteredDigest.table && !alteredDigest.libcrypto)
                let noise = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
                let random = verdicts(table, key.publicKey, noise, digest)
                #expect(!random.table && !random.libcrypto)
            }
        }
    }

    @Test("the other valid form of a signature, (r, n − s), verifies with the table as with libcrypto")
    func negatedS() throws {
        let key = try ECPrivateKey(generating: .p256)
        let table = try ES256KeyTable(key.publicKey)
        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJ4IjoxfQ".utf8)
        let signature = try key.signES256(message: message)
        let negated = Array(signature[..<32]) + Self.orderMinus(signature[32...])
        let result = verdicts(table, key.publicKey, negated, SHA256.hash(message))
        #expect(result.table == result.libcrypto)
        #expect(result.table)
    }

    @Test("r or s of zero, equal to the group order, or above it is rejected")
    func scalarsOutOfRange() throws {
        let key = try ECPrivateKey(generating: .p256)
        let table = try ES256KeyTable(key.publicKey)
        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJ5IjoyfQ".utf8)
        let digest = SHA256.hash(message)
        let signature = try key.signES256(message: message)
        let r = Array(signature[..<32]), s = Array(signature[32...])
        let zero = [UInt8](repeating: 0, count: 32), above = [UInt8](repeating: 0xFF, count: 32)
        for (name, candidate) in [("r = 0", zero + s), ("s = 0", r + zero), ("r = n", Self.order + s), ("s = n", r + Self.order),
                                  ("r > n", above + s), ("s > n", r + above)] {
            let result = verdicts(table, key.publicKey, candidate, digest)
            #expect(!result.table && !result.libcrypto, "\(name)")
        }
    }

    @Test("a table verifies only its own key's signatures, and only 64-byte signatures of 32-byte digests")
    func ownKeyOnly() throws {
        let key = try ECPrivateKey(generating: .p256)
        let other = try ES256KeyTable(try ECPrivateKey(generating: .p256).publicKey)
        let message = Array("eyJhbGciOiJFUzI1NiJ9.eyJ6IjozfQ".utf8)
        let signature = try key.signES256(message: message)
        let digest = SHA256.hash(message)
        signature.withUnsafeBytes { signature in
            digest.withUnsafeBytes { digest in
                #expect(!other.verify(signature: signature, digest: digest))
                #expect(!other.verify(signature: UnsafeRawBufferPointer(rebasing: signature[..<63]), digest: digest))
                #expect(!other.verify(signature: signature, digest: UnsafeRawBufferPointer(rebasing: digest[..<31])))
            }
        }
        #expect(throws: CryptoError.self) { try ES256KeyTable(try ECPrivateKey(generating: .p384).publicKey) }
    }

    @Test("one table verifies on many threads at once, each answer right")
    func concurrentUse() throws {
        let key = try ECPrivateKey(generating: .p256)
        let table = try ES256KeyTable(key.publicKey)
        let messages = (0..<16).map { Array("message \($0)".utf8) }
        let signatures = try messages.map { try key.signES256(message: $0) }
        let digests = messages.map { SHA256.hash($0) }
        let wrong = Atomic(0)
        DispatchQueue.concurrentPerform(iterations: 800) { index in
            // Odd iterations check a signature against another message's digest.
            let expected = index % 2 == 0
            let signature = signatures[index % 16], digest = digests[(index + (expected ? 0 : 1)) % 16]
            let verified = signature.withUnsafeBytes { signature in digest.withUnsafeBytes { table.verify(signature: signature, digest: $0) } }
            if verified != expected { wrong.add(1, ordering: .relaxed) }
        }
        #expect(wrong.load(ordering: .relaxed) == 0)
    }
}
