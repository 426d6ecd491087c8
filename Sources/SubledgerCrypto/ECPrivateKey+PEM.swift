import COpenSSL

extension ECPrivateKey {
    /// Reads an unencrypted PEM private key, such as the PKCS#8 `.p8` file App Store Connect
    /// hands out for the App Store Server API (`PEM_read_bio_PrivateKey`).
    public convenience init(pem: [UInt8]) throws(CryptoError) {
        let parsed = pem.withUnsafeBytes { buffer -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let parsed else { throw CryptoError.openSSL("PEM_read_bio_PrivateKey (is it a .p8 key file?)", reason: .notPEM) }
        guard EVP_PKEY_get_base_id(parsed) == EVP_PKEY_EC else {
            let type = EVP_PKEY_get0_type_name(parsed).map { String(cString: $0) } ?? "unknown"
            EVP_PKEY_free(parsed)
            throw CryptoError("a key of type \(type), not an elliptic-curve key", reason: .notEllipticCurve(keyType: type))
        }
        try self.init(owning: parsed)
    }

    /// The key as unencrypted PKCS#8 PEM, the `.p8` layout (`PEM_write_bio_PKCS8PrivateKey`).
    public func pkcs8PEM() throws(CryptoError) -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else { throw CryptoError.openSSL("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PKCS8PrivateKey(bio, pointer, nil, nil, 0, nil, nil) == 1 else {
            throw CryptoError.openSSL("PEM_write_bio_PKCS8PrivateKey")
        }
        var data: UnsafeMutablePointer<CChar>?
        let count = BIO_ctrl(bio, BIO_CTRL_INFO, 0, &data)
        guard count > 0, let data else { throw CryptoError.openSSL("BIO_get_mem_data") }
        return Array(UnsafeRawBufferPointer(start: data, count: count))
    }
}
