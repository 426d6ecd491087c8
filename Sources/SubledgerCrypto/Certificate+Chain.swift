import COpenSSL

extension Certificate {
    /// Whether this certificate's signature verifies with `issuer`'s public key (`X509_verify`);
    /// any ECDSA or RSA signature algorithm libcrypto knows, e.g. ecdsa-with-SHA384 or -SHA256.
    public func isSigned(by issuer: Certificate) -> Bool {
        guard let issuerKey = X509_get0_pubkey(issuer.pointer) else {
            CryptoError.clearQueue()
            return false
        }
        let verified = X509_verify(pointer, issuerKey) == 1
        if !verified {
            CryptoError.clearQueue()
        }
        return verified
    }

    /// Whether `issuer` may have issued this certificate, without checking the signature
    /// (`X509_check_issued`): this certificate's issuer name equals `issuer`'s subject name, its
    /// authority key identifier (if any) matches `issuer`'s, and `issuer`'s key usage (if any)
    /// allows certificate signing.
    public func identifiesIssuer(_ issuer: Certificate) -> Bool {
        X509_check_issued(issuer.pointer, pointer) == X509_V_OK
    }

    /// Whether the certificate carries an extension with the dotted `oid`, e.g.
    /// `"1.2.840.113635.100.6.11.1"` (`OBJ_txt2obj`, `X509_get_ext_by_OBJ`).
    public func hasExtension(oid: String) -> Bool {
        guard let object = OBJ_txt2obj(oid, 1) else {
            CryptoError.clearQueue()
            return false
        }
        defer { ASN1_OBJECT_free(object) }
        return X509_get_ext_by_OBJ(pointer, object, -1) >= 0
    }

    /// The subject's public key; throws unless it is a P-256 or P-384 EC key
    /// (`X509_get_pubkey`).
    public var publicKey: ECPublicKey {
        get throws(CryptoError) {
            guard let key = X509_get_pubkey(pointer) else {
                throw CryptoError.openSSL("X509_get_pubkey")
            }
            return try ECPublicKey(taking: key)
        }
    }
}
