import COpenSSL

/// An elliptic-curve private key on P-256 or P-384; owns an `EVP_PKEY`. Used to sign test data
/// and test certificates, never to verify App Store data.
///
/// `@unchecked Sendable`: the key is never modified after `init`, and OpenSSL 3 allows one
/// `EVP_PKEY` to be used by concurrent sign operations that don't change it (openssl-threads(7)).
public final class ECPrivateKey: @unchecked Sendable {
    let pointer: OpaquePointer
    public let curve: ECCurve
    /// The matching public key, as its own `EVP_PKEY` that holds no private material.
    public let publicKey: ECPublicKey

    /// Generates a fresh random key on `curve` (`EVP_PKEY_keygen_init`,
    /// `EVP_PKEY_CTX_set_group_name`, `EVP_PKEY_generate`).
    public init(generating curve: ECCurve) throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, "EC", nil) else {
            throw CryptoError.openSSL("EVP_PKEY_CTX_new_from_name(EC)")
        }
        defer { EVP_PKEY_CTX_free(context) }
        var generated: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_group_name(context, curve.groupName) == 1,
              EVP_PKEY_generate(context, &generated) == 1,
              let generated
        else {
            throw CryptoError.openSSL("EVP_PKEY_generate(\(curve.rawValue))")
        }
        pointer = generated
        self.curve = curve
        do {
            publicKey = try Self.publicKey(of: generated)
        } catch {
            EVP_PKEY_free(generated)
            throw error
        }
    }

    /// Takes ownership of `pointer`, an EC key (freed here if it is not one this type handles).
    init(owning pointer: OpaquePointer) throws(CryptoError) {
        self.pointer = pointer
        do {
            curve = try ECPublicKey.curve(of: pointer)
            publicKey = try Self.publicKey(of: pointer)
        } catch {
            EVP_PKEY_free(pointer)
            throw error
        }
    }

    deinit {
        EVP_PKEY_free(pointer)
    }

    /// Signs `message` with ES256 (ECDSA P-256, SHA-256) and returns raw `r || s`, 64 bytes,
    /// each scalar left-padded (`EVP_DigestSign`, then DER → raw). ECDSA is randomized: signing
    /// the same message twice gives different, equally valid signatures.
    public func signES256(message: UnsafeRawBufferPointer) throws(CryptoError) -> [UInt8] {
        guard curve == .p256 else {
            throw CryptoError("ES256 needs a P-256 key; this key is \(curve.rawValue)")
        }
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.openSSL("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        let bytes = message.bindMemory(to: UInt8.self).baseAddress
        var capacity = 0
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, pointer) == 1,
              EVP_DigestSign(context, nil, &capacity, bytes, message.count) == 1
        else { throw CryptoError.openSSL("EVP_DigestSignInit(ES256)") }
        var der = [UInt8](repeating: 0, count: capacity)
        var length = capacity
        guard EVP_DigestSign(context, &der, &length, bytes, message.count) == 1 else {
            throw CryptoError.openSSL("EVP_DigestSign(ES256)")
        }
        der.removeSubrange(length...)
        return try ECDSASignature.raw(fromDER: der, scalarCount: curve.scalarCount)
    }

    public func signES256(message: [UInt8]) throws(CryptoError) -> [UInt8] {
        // Array.withUnsafeBytes rethrows untyped errors; Result carries the typed one out.
        try message.withUnsafeBytes { message in
            Result { () throws(CryptoError) in try signES256(message: message) }
        }.get()
    }

    /// Copies the public half into a new key through its DER `SubjectPublicKeyInfo`.
    private static func publicKey(of pointer: OpaquePointer) throws(CryptoError) -> ECPublicKey {
        let count = i2d_PUBKEY(pointer, nil)
        guard count > 0 else { throw CryptoError.openSSL("i2d_PUBKEY") }
        var der = [UInt8](repeating: 0, count: Int(count))
        _ = der.withUnsafeMutableBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return i2d_PUBKEY(pointer, &cursor)
        }
        return try ECPublicKey(subjectPublicKeyInfo: der)
    }
}
