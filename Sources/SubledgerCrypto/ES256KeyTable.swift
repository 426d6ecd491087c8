import CES256
import COpenSSL

/// A P-256 public key with its multiples precomputed, for verifying many ES256 signatures by one
/// key: Apple signs every App Store message with the same leaf key for months. Build one only for
/// a key that is known to sign (`SignedDataVerifier` waits for a first message that verifies). A verification
/// takes about a third of `ECPublicKey.verifyES256`'s time (26–31 against 78–93 µs in one run on
/// this machine class): libcrypto computes the key's part of the check from tables, as it does the
/// curve generator's, and the inversions are our own (`subledger_p256_order_inverse`). Building one takes about 17 ms and holds about 150 KB, so build it once per key
/// and keep it.
///
/// `@unchecked Sendable`: the tables are never modified after `init`, and each verification
/// allocates what it writes (`subledger_es256_verify`).
public final class ES256KeyTable: @unchecked Sendable {
    private let table: OpaquePointer

    public init(_ key: ECPublicKey) throws(CryptoError) {
        guard key.curve == .p256 else {
            throw CryptoError("ES256 needs a P-256 key; this one is on \(key.curve.rawValue)")
        }
        let point = try key.encodedPoint()
        guard let table = point.withUnsafeBufferPointer({ subledger_es256_key_new($0.baseAddress, $0.count) }) else {
            throw CryptoError("libcrypto could not precompute the key's multiples (out of memory?)")
        }
        self.table = table
    }

    deinit {
        subledger_es256_key_free(table)
    }

    /// Whether `signature` (raw `r || s`, 64 bytes) is this key's ES256 signature of the message
    /// whose SHA-256 is `digest`; any other length is `false`. Answers as
    /// `ECPublicKey.verifyES256(signature:digest:)` does.
    public func verify(signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer) -> Bool {
        guard signature.count == ECPublicKey.es256SignatureCount, digest.count == SHA256.digestCount else { return false }
        return subledger_es256_verify(table, digest.baseAddress, signature.baseAddress) == 1
    }
}

extension ECPublicKey {
    /// The key's point as libcrypto encodes it (`0x04 || x || y` for keys from certificates).
    func encodedPoint() throws(CryptoError) -> [UInt8] {
        var point = [UInt8](repeating: 0, count: 1 + 2 * 66)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pointer, OSSL_PKEY_PARAM_PUB_KEY, &point, point.count, &length) == 1 else {
            throw CryptoError.openSSL("EVP_PKEY_get_octet_string_param (the public point)")
        }
        return Array(point.prefix(length))
    }
}
