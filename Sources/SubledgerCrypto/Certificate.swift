import COpenSSL

/// An X.509 certificate; owns an `X509`.
///
/// Everything a chain check reads (names, validity, basic constraints) is decoded once in
/// `init`, which also makes OpenSSL fill its lazily computed extension cache.
/// `@unchecked Sendable`: the `X509` is never modified after `init`, and the OpenSSL 3 calls used
/// afterwards (`X509_verify`, `X509_check_issued`, `X509_get_ext_by_OBJ`) only read it or take
/// the certificate's own lock.
public final class Certificate: @unchecked Sendable, Equatable {
    let pointer: OpaquePointer
    /// The DER encoding, exactly the bytes this certificate was parsed from.
    public let der: [UInt8]
    public let subjectName: DistinguishedName
    public let issuerName: DistinguishedName
    /// Start of the validity window, epoch milliseconds (certificates have second precision).
    public let notBefore: Int64
    /// End of the validity window, inclusive, epoch milliseconds.
    public let notAfter: Int64
    /// basicConstraints `cA` is true.
    public let isCA: Bool
    /// basicConstraints `pathLenConstraint`, if present.
    public let pathLengthConstraint: Int?
    /// An extension marked critical that OpenSSL does not understand (RFC 5280: refuse it).
    public let hasUnknownCriticalExtension: Bool
    /// keyUsage allows digitalSignature, or there is no keyUsage.
    public let allowsDigitalSignature: Bool
    /// The serial number in lowercase big-endian hexadecimal, two digits per byte (`BN_bn2hex`).
    public let serialNumber: String

    /// Parses a DER certificate (`d2i_X509`). Trailing bytes after the certificate, or extensions
    /// OpenSSL cannot decode, are errors.
    public convenience init(der: [UInt8]) throws(CryptoError) {
        let parsed = der.withUnsafeBufferPointer { buffer -> (certificate: OpaquePointer?, consumed: Int) in
            var cursor = buffer.baseAddress
            let certificate = d2i_X509(nil, &cursor, buffer.count)
            return (certificate, buffer.baseAddress.map { cursor! - $0 } ?? 0)
        }
        guard let certificate = parsed.certificate else {
            throw CryptoError.openSSL("d2i_X509 (\(der.count) bytes of DER)")
        }
        guard parsed.consumed == der.count else {
            X509_free(certificate)
            throw CryptoError("the DER certificate is followed by \(der.count - parsed.consumed) unexpected bytes")
        }
        try self.init(taking: certificate, der: der)
    }

    /// Takes ownership of `pointer` (freed even when this throws).
    init(taking pointer: OpaquePointer, der: [UInt8]) throws(CryptoError) {
        let flags = X509_get_extension_flags(pointer)
        guard flags & UInt32(EXFLAG_INVALID) == 0 else {
            X509_free(pointer)
            throw CryptoError("the certificate has an extension that cannot be decoded or is repeated")
        }
        guard let notBefore = Self.epochMillis(X509_get0_notBefore(pointer)),
              let notAfter = Self.epochMillis(X509_get0_notAfter(pointer))
        else {
            X509_free(pointer)
            throw CryptoError.openSSL("ASN1_TIME_diff (certificate validity)")
        }
        self.pointer = pointer
        self.der = der
        self.notBefore = notBefore
        self.notAfter = notAfter
        subjectName = DistinguishedName(reading: X509_get_subject_name(pointer))
        issuerName = DistinguishedName(reading: X509_get_issuer_name(pointer))
        isCA = flags & UInt32(EXFLAG_CA) != 0
        let pathLength = X509_get_pathlen(pointer)
        pathLengthConstraint = pathLength >= 0 ? Int(pathLength) : nil
        hasUnknownCriticalExtension = flags & UInt32(EXFLAG_CRITICAL) != 0
        // UINT32_MAX when the certificate has no keyUsage.
        allowsDigitalSignature = X509_get_key_usage(pointer) & UInt32(KU_DIGITAL_SIGNATURE) != 0
        serialNumber = Self.hex(X509_get0_serialNumber(pointer))
    }

    deinit {
        X509_free(pointer)
    }

    public static func == (lhs: Certificate, rhs: Certificate) -> Bool {
        lhs.der == rhs.der
    }

    /// Milliseconds from the epoch to `time` (`ASN1_TIME_diff` against 1970-01-01T00:00:00Z).
    private static func epochMillis(_ time: UnsafePointer<ASN1_TIME>?) -> Int64? {
        guard let time, let epoch = ASN1_TIME_set(nil, 0) else { return nil }
        defer { ASN1_TIME_free(epoch) }
        var days: Int32 = 0
        var seconds: Int32 = 0
        guard ASN1_TIME_diff(&days, &seconds, epoch, time) == 1 else { return nil }
        return (Int64(days) * 86_400 + Int64(seconds)) * 1000
    }

    private static func hex(_ serial: UnsafePointer<ASN1_INTEGER>?) -> String {
        guard let serial, let number = ASN1_INTEGER_to_BN(serial, nil) else { return "" }
        defer { BN_free(number) }
        guard let text = BN_bn2hex(number) else { return "" }
        defer { CRYPTO_free(text, #fileID, #line) }
        return String(cString: text).lowercased()
    }
}

extension Certificate {
    /// The subject's common name (else its whole name) and the first 8 bytes of the certificate's
    /// SHA-256, as `openssl x509 -fingerprint -sha256` prints them: names alone cannot tell a test
    /// hierarchy's "Apple Root CA - G3" from Apple's.
    public var fingerprintLabel: String {
        let hex = SHA256.hash(der).prefix(8).map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }
        return "\(subjectName.commonName ?? subjectName.description), SHA-256 " + hex.joined(separator: ":") + "…"
    }
}
