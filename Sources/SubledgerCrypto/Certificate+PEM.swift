import COpenSSL

extension Certificate {
    /// Parses the first `-----BEGIN CERTIFICATE-----` block of PEM text (`PEM_read_bio_X509`).
    public convenience init(pem: [UInt8]) throws(CryptoError) {
        let parsed = pem.withUnsafeBytes { buffer -> OpaquePointer? in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_X509(bio, nil, nil, nil)
        }
        guard let parsed else { throw CryptoError.openSSL("PEM_read_bio_X509") }
        let count = i2d_X509(parsed, nil)
        guard count > 0 else {
            X509_free(parsed)
            throw CryptoError.openSSL("i2d_X509")
        }
        let der = [UInt8](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
            var cursor = buffer.baseAddress
            initialized = Int(i2d_X509(parsed, &cursor))
        }
        try self.init(taking: parsed, der: der)
    }

    /// Parses a certificate file's contents in either encoding: DER (starts with an ASN.1
    /// SEQUENCE tag) or PEM. Configured roots may come in either form.
    public convenience init(derOrPEM bytes: [UInt8]) throws(CryptoError) {
        if bytes.first == 0x30 {
            try self.init(der: bytes)
        } else {
            try self.init(pem: bytes)
        }
    }

    /// The certificate as PEM text (RFC 7468: base64 in 64-column lines), with a trailing newline.
    public var pem: String {
        let base64 = Base64.encode(der)
        var text = "-----BEGIN CERTIFICATE-----\n"
        var start = 0
        while start < base64.count {
            let end = min(start + 64, base64.count)
            text += String(decoding: base64[start..<end], as: UTF8.self) + "\n"
            start = end
        }
        return text + "-----END CERTIFICATE-----\n"
    }
}
