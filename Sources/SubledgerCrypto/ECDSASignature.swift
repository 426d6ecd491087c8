import COpenSSL

/// Conversions between the two encodings of an ECDSA signature: JWS uses raw `r || s`
/// (RFC 7518 §3.4), libcrypto uses DER `ECDSA-Sig-Value` (SEQUENCE of two INTEGERs).
enum ECDSASignature {
    /// DER-encodes raw `r || s`: a SEQUENCE of two INTEGERs, each minimal and non-negative.
    /// `raw` holds two big-endian scalars of equal length, at most 48 bytes each (P-384), so
    /// every length fits one byte. Written here rather than through `i2d_ECDSA_SIG`, whose big
    /// numbers cost more than the encoding (1% of ingestion's CPU).
    static func der(fromRaw raw: UnsafeRawBufferPointer) -> [UInt8] {
        let half = raw.count / 2
        precondition(half <= 48, "ECDSA scalars are at most 48 bytes (P-384)")
        let r = UnsafeRawBufferPointer(rebasing: raw[..<half])
        let s = UnsafeRawBufferPointer(rebasing: raw[half...])
        var der: [UInt8] = [0x30, 0]
        der.reserveCapacity(6 + raw.count + 2)
        appendInteger(r, to: &der)
        appendInteger(s, to: &der)
        der[1] = UInt8(der.count - 2)
        return der
    }

    /// An INTEGER of the unsigned big-endian `magnitude`: leading zeros dropped, and a zero
    /// byte first where the top bit would read as a sign (so zero is the one byte 0).
    private static func appendInteger(_ magnitude: UnsafeRawBufferPointer, to der: inout [UInt8]) {
        let digits = magnitude.drop { $0 == 0 }
        let pad = digits.first.map { $0 & 0x80 != 0 } ?? true
        der.append(0x02)
        der.append(UInt8(digits.count + (pad ? 1 : 0)))
        if pad { der.append(0) }
        der.append(contentsOf: digits)
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
