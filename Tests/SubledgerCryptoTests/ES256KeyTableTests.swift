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

    /// Signatures built for the corners of the check, which signing never reaches on purpose
    /// (made by solving for the key: Q = u2⁻¹·(R − u1·G) for a chosen point R), each with the
    /// verdict both verifications give: (case, key point, digest, r || s, valid).
    static let corners: [(String, String, String, String, Bool)] = [
        ("x(R) at or above n, r = x(R) mod n", "044def0c324f31f043a38aef6ea60dd9477e370af383c0cc4ad529ae27797f0652606ab6b10052c9d3006bd38b0cdcc4d5024149236e05050024a9f33bbf85138b", "184aa74bf00f9eac7113e184b4ab2284e9eabe382b80632bef70fb962f4c7a4b", "00000000000000000000000000000000000000000000000000000000000000037d0973f946db2d2e3d5fc6a64c927582528cc895dc0c83d5d58195e7925e28df", true),
        ("x(R) at or above n, r = x(R) unreduced", "044def0c324f31f043a38aef6ea60dd9477e370af383c0cc4ad529ae27797f0652606ab6b10052c9d3006bd38b0cdcc4d5024149236e05050024a9f33bbf85138b", "184aa74bf00f9eac7113e184b4ab2284e9eabe382b80632bef70fb962f4c7a4b", "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc6325547d0973f946db2d2e3d5fc6a64c927582528cc895dc0c83d5d58195e7925e28df", false),
        ("small x(R), r", "047fd0f29bffdbfb386e699a421f6951ac4d0ba5552970cd3492d849e07e00464fefae0c9c88eb0c8192848e479f780a1662a20f8b409cd4c3bfa81dfc5a284b33", "d17ceae5f1b8c0c12abac5b5faeba36e9bff4ca9b8ff180ec8061bc56fa1af59", "0000000000000000000000000000000000000000000000000000000000000005742a0622f22efd65918a91dcc2daf96ac575986058a915b689a57acd337950af", true),
        ("small x(R), r + n", "047fd0f29bffdbfb386e699a421f6951ac4d0ba5552970cd3492d849e07e00464fefae0c9c88eb0c8192848e479f780a1662a20f8b409cd4c3bfa81dfc5a284b33", "d17ceae5f1b8c0c12abac5b5faeba36e9bff4ca9b8ff180ec8061bc56fa1af59", "ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632556742a0622f22efd65918a91dcc2daf96ac575986058a915b689a57acd337950af", false),
        ("x(R) below 2n − p, r = x(R) + p − n (r + n above p)", "04a11186c4ce18ef2142a2d02dc0dba64b2a5b63e3c298417a795e1bdeed47a795d58346295ad9b68807100222c86e1d5a7d6402601f65222d21a8013747910e88", "12de8378531f9d7717fe070fb85dd9454462fcd395e11dd50f6a340ca1b85d85", "b862bd947a9ed38fbdb0745f521bcfd5a6b55fb9b10f7962e8d6a63cca04805681c1e1edbdb1f039d8383c6d489c8b164d1aa949012dcd36f67967054a1f8d08", false),
        ("u1·G = u2·Q, the sum a doubling", "044c858a23ccea6e62987e4903bc66e20e80f1ebc06203ece5b159257ea1c6e208c6b36fe53354aa1ccb28d552ec1dbc6f1f3d50990b4f1ae61fdf84436b32dfda", "7d61ea7e054b02a14b871b99f75261a6c663e463e466d9b404cd98868d48aa7e", "dca36a61742936f8ad1ce0acf0dba6b30079366c5a80e5f9cdf64b634082002b02b79f95dd85c9c62b196cff5cad71047d09c374ebbca19864a8f19bd696e032", true),
        ("u1·G = −u2·Q, the sum infinity", "04b8ffa87813e2f756157c3dd859f2159a38ce1c05fce8cbc02d9053b30cb582db1110bec22d9b4a69e0ff920ad82671fdf3a1c94649ef1d6110a04ddf4180df92", "7d61ea7e054b02a14b871b99f75261a6c663e463e466d9b404cd98868d48aa7e", "411e902966584bb022a76ad9595259316dbecda8991e0818e7351423e41c8bb902b79f95dd85c9c62b196cff5cad71047d09c374ebbca19864a8f19bd696e032", false),
        ("the key is the generator (d = 1)", "046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5", "84b2520f003c957b8b7907d750ec1f911a1b1b129bf072794d8e33a6c2a73c10", "681047b4a9cee4d7cbc877c83b3de92be93ea919c915bd70a1000b9b188cc0b2572e241578b73a5e4a4db84e031ff39700637976cb73321708584daff93ed0a6", true),
        ("a digest of zero", "046b17d1f2e12c4247f8bce6e563a440f277037d812deb33a0f4a13945d898c2964fe342e2fe1a7f9b8ee7eb4a7c0f9e162bce33576b315ececbb6406837bf51f5", "0000000000000000000000000000000000000000000000000000000000000000", "d4c2506aa82ef335b2deed36218290eab15ee836489c3cdc446e29a26e46ae5e229243e7998ef4d3757f79037bd173aaa9d8842845c1304c623ae38a82b5dac7", true),
        ("a digest at or above n", "04599e286321c37299040b167092ef1301c7f84aee538c2cfcc3d67e842245723f6ecffa09585a40a3a65c237256a41edd7ae41ce3fff17b93236ef019bd5e968c", "ffffffff0000002f67b36ed1273791f08fb6eeda2690ac47d014af6612755218", "9ad257e934b968ee28cf0440add13d53dfcf053cf359213545369de9b3020ec92a10ea0b395beb4cf9ca4365376537fdffee36c5623c912fbb269020dca18b56", true),
    ]

    @Test("at the corners of the check (x(R) at or above n, r + n, r + n above p, a doubling, infinity, the generator as key, extreme digests) the table answers as libcrypto does", arguments: 0..<corners.count)
    func corner(_ index: Int) throws {
        let (name, point, digest, signature, valid) = Self.corners[index]
        // DER SubjectPublicKeyInfo of a P-256 key: this header, then the point.
        let key = try ECPublicKey(subjectPublicKeyInfo: Self.bytes("3059301306072a8648ce3d020106082a8648ce3d030107034200" + point))
        let result = verdicts(try ES256KeyTable(key), key, Self.bytes(signature), Self.bytes(digest))
        #expect(result.libcrypto == valid, "\(name): libcrypto")
        #expect(result.table == valid, "\(name): the table")
    }

    static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)! }
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
