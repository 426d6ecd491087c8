import COpenSSL

extension ECPublicKey {
    /// Byte count of an ES256 signature: raw `r || s`, 32 bytes each (RFC 7518 §3.4).
    public static let es256SignatureCount = 64

    /// Verifies an ES256 signature (ECDSA P-256 with SHA-256) over `message`.
    ///
    /// `signature` must be exactly 64 bytes of raw `r || s`; any other length, a key that is not
    /// P-256, or a signature that does not verify returns `false`. Hashes `message` with SHA-256,
    /// converts the signature to DER and verifies the digest (`EVP_PKEY_verify`) with a copy of
    /// the key's prepared context, so no algorithm is looked up per message.
    public func verifyES256(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        SHA256.hash(message).withUnsafeBytes { verifyES256(signature: signature, digest: $0) }
    }

    /// Verifies an ES256 signature over the message whose SHA-256 is `digest` (32 bytes), for
    /// callers that hash the message themselves (`SHA256Prefix`).
    public func verifyES256(signature: UnsafeRawBufferPointer, digest: UnsafeRawBufferPointer) -> Bool {
        guard curve == .p256, signature.count == Self.es256SignatureCount, digest.count == SHA256.digestCount,
              let verification,
              let context = EVP_PKEY_CTX_dup(verification)
        else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        let der = ECDSASignature.der(fromRaw: signature)
        let verified = EVP_PKEY_verify(context, der, der.count, digest.baseAddress, digest.count) == 1
        if !verified {
            CryptoError.clearQueue()
        }
        return verified
    }

    public func verifyES256(signature: [UInt8], message: [UInt8]) -> Bool {
        signature.withUnsafeBytes { signature in
            message.withUnsafeBytes { message in
                verifyES256(signature: signature, message: message)
            }
        }
    }

    /// A context initialized for verifying with `key` (`EVP_PKEY_verify_init`), copied for each
    /// verification; `nil` if libcrypto cannot make one.
    static func verificationContext(for key: OpaquePointer) -> OpaquePointer? {
        guard let context = EVP_PKEY_CTX_new(key, nil) else { return nil }
        guard EVP_PKEY_verify_init(context) == 1 else {
            EVP_PKEY_CTX_free(context)
            CryptoError.clearQueue()
            return nil
        }
        return context
    }
}
