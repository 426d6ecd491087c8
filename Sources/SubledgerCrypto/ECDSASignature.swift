import COpenSSL

/// Conversions between the two encodings of an ECDSA signature: JWS uses raw `r || s`
/// (RFC 7518 §3.4), libcrypto uses DER `ECDSA-Sig-Value` (SEQUENCE of two INTEGERs).
enum ECDSASignature {
    /// DER-encodes raw `r || s` (`ECDSA_SIG_new`, `BN_bin2bn`, `i2d_ECDSA_SIG`); `nil` only
    /// when libcrypto cannot allocate. `raw` holds two big-endian scalars of equal length.
    static func der(fromRaw raw: UnsafeRawBufferPointer) -> [UInt8]? {
        let half = raw.count / 2
        guard let signature = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(signature) }
        let base = raw.bindMemory(to: UInt8.self).baseAddress
        guard let r = BN_bin2bn(base, Int32(half), nil) else { return nil }
        guard let s = BN_bin2bn(base.map { $0 + half }, Int32(half), nil) else {
            BN_free(r)
            return nil
        }
        // ECDSA_SIG_set0 takes ownership of r and s.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        let count = i2d_ECDSA_SIG(signature, nil)
        guard count > 0 else { return nil }
        return [UInt8](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
            var cursor = buffer.baseAddress
            initialized = max(0, Int(i2d_ECDSA_SIG(signature, &cursor)))
        }
    }

    /// Converts a DER signature into raw `r || s`, each left-padded to `scalarCount` bytes
    /// (`d2i_ECDSA_SIG`, `BN_bn2binpad`).
    static func raw(fromDER der: [UInt8], scalarCount: Int) throws(CryptoError) -> [UInt8] {
        let parsed = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            var cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, buffer.count)
        }
        guard let parsed else { throw CryptoError.openSSL("d2i_ECDSA_SIG") }
        defer { ECDSA_SIG_free(parsed) }
        var ok = true
        let raw = [UInt8](unsafeUninitializedCapacity: 2 * scalarCount) { buffer, initialized in
            let base = buffer.baseAddress!
            ok = BN_bn2binpad(ECDSA_SIG_get0_r(parsed), base, Int32(scalarCount)) == Int32(scalarCount)
                && BN_bn2binpad(ECDSA_SIG_get0_s(parsed), base + scalarCount, Int32(scalarCount)) == Int32(scalarCount)
            initialized = 2 * scalarCount
        }
        guard ok else { throw CryptoError("an ECDSA signature scalar is longer than \(scalarCount) bytes") }
        return raw
    }
}
