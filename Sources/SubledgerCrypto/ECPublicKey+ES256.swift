import COpenSSL

extension ECPublicKey {
    /// Byte count of an ES256 signature: raw `r || s`, 32 bytes each (RFC 7518 §3.4).
    public static let es256SignatureCount = 64

    /// Verifies an ES256 signature (ECDSA P-256 with SHA-256) over `message`.
    ///
    /// `signature` must be exactly 64 bytes of raw `r || s`; any other length, a key that is not
    /// P-256, or a signature that does not verify returns `false`. Wraps `EVP_DigestVerifyInit`
    /// + `EVP_DigestVerify` after converting the signature to DER.
    public func verifyES256(signature: UnsafeRawBufferPointer, message: UnsafeRawBufferPointer) -> Bool {
        guard curve == .p256, signature.count == Self.es256SignatureCount,
              let der = ECDSASignature.der(fromRaw: signature),
              let context = EVP_MD_CTX_new()
        else { return false }
        defer { EVP_MD_CTX_free(context) }
        let verified = EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, pointer) == 1
            && EVP_DigestVerify(context, der, der.count, message.bindMemory(to: UInt8.self).baseAddress, message.count) == 1
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
}
