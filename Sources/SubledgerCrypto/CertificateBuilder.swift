import COpenSSL

/// Issues X.509 v3 certificates shaped like Apple's App Store chain, for a test PKI.
///
/// Each profile sets the extensions Apple's certificates carry (critical basicConstraints and
/// keyUsage, subject and authority key identifiers, the marker extension), which is also what
/// OpenSSL's `X509_STRICT` chain check expects. Signatures use SHA-384 with a P-384 issuer key
/// and SHA-256 with a P-256 one.
public struct CertificateBuilder: Sendable {
    public enum Profile: Sendable {
        /// Self-signed trust anchor: CA:TRUE, keyCertSign + cRLSign.
        case root
        /// CA:TRUE with pathlen 0, keyCertSign + cRLSign, Apple's intermediate marker.
        case intermediate
        /// CA:FALSE, digitalSignature, Apple's leaf marker.
        case leaf
    }

    public var profile: Profile
    public var subject: DistinguishedName
    public var serialNumber: UInt64
    /// Epoch milliseconds; certificates store whole seconds, so sub-second parts are dropped.
    public var notBefore: Int64
    /// Epoch milliseconds, inclusive; sub-second parts are dropped.
    public var notAfter: Int64
    /// Dotted OIDs added as extensions with value ASN.1 NULL. Defaults to the profile's Apple
    /// marker; empty it to issue a certificate without one.
    public var markerOIDs: [String]
    /// Marks them critical, as no verifier understands them: such a certificate must be refused.
    public var markersAreCritical = false
    /// basicConstraints and keyUsage in OpenSSL's configuration syntax; the profile's unless set.
    public var basicConstraints: String
    public var keyUsage: String

    public init(profile: Profile, subject: DistinguishedName, serialNumber: UInt64, notBefore: Int64, notAfter: Int64) {
        self.profile = profile
        self.subject = subject
        self.serialNumber = serialNumber
        self.notBefore = notBefore
        self.notAfter = notAfter
        switch profile {
        case .root:
            markerOIDs = []
            basicConstraints = "critical,CA:TRUE"
            keyUsage = "critical,keyCertSign,cRLSign"
        case .intermediate:
            markerOIDs = [AppleMarkerOID.intermediate]
            basicConstraints = "critical,CA:TRUE,pathlen:0"
            keyUsage = "critical,keyCertSign,cRLSign"
        case .leaf:
            markerOIDs = [AppleMarkerOID.leaf]
            basicConstraints = "critical,CA:FALSE"
            keyUsage = "critical,digitalSignature"
        }
    }

    /// A certificate for `key`'s public key, signed by `key` itself (issuer = subject).
    public func selfSigned(key: ECPrivateKey) throws(CryptoError) -> Certificate {
        try build(publicKey: key.publicKey, issuer: nil, signingKey: key)
    }

    /// A certificate for `publicKey`, issued and signed by `issuer` with `issuerKey`.
    public func issue(for publicKey: ECPublicKey, issuer: Certificate, issuerKey: ECPrivateKey) throws(CryptoError) -> Certificate {
        try build(publicKey: publicKey, issuer: issuer, signingKey: issuerKey)
    }

    private var extensions: [(nid: Int32, value: String)] {
        [(NID_basic_constraints, basicConstraints), (NID_key_usage, keyUsage), (NID_subject_key_identifier, "hash")]
            + (profile == .root ? [] : [(NID_authority_key_identifier, "keyid:always")])
    }

    /// `X509_new`, `X509_set_*`, `X509V3_EXT_nconf_nid` / `X509_EXTENSION_create_by_OBJ`,
    /// `X509_add_ext`, `X509_sign`, then `i2d_X509`.
    private func build(publicKey: ECPublicKey, issuer: Certificate?, signingKey: ECPrivateKey) throws(CryptoError) -> Certificate {
        guard let certificate = X509_new() else { throw CryptoError.openSSL("X509_new") }
        let der: [UInt8]
        do throws(CryptoError) {
            try fill(certificate, publicKey: publicKey, issuer: issuer)
            let digest = signingKey.curve == .p384 ? EVP_sha384() : EVP_sha256()
            guard X509_sign(certificate, signingKey.pointer, digest) > 0 else {
                throw CryptoError.openSSL("X509_sign")
            }
            let count = i2d_X509(certificate, nil)
            guard count > 0 else { throw CryptoError.openSSL("i2d_X509") }
            der = [UInt8](unsafeUninitializedCapacity: Int(count)) { buffer, initialized in
                var cursor = buffer.baseAddress
                initialized = Int(i2d_X509(certificate, &cursor))
            }
        } catch {
            X509_free(certificate)
            throw error
        }
        return try Certificate(taking: certificate, der: der)
    }

    private func fill(_ certificate: OpaquePointer, publicKey: ECPublicKey, issuer: Certificate?) throws(CryptoError) {
        guard X509_set_version(certificate, Int(X509_VERSION_3)) == 1,
              ASN1_INTEGER_set_uint64(X509_get_serialNumber(certificate), serialNumber) == 1,
              X509_set_pubkey(certificate, publicKey.pointer) == 1
        else { throw CryptoError.openSSL("X509_set_version/serialNumber/pubkey") }

        let subjectName = try subject.makeX509Name()
        defer { X509_NAME_free(subjectName) }
        guard X509_set_subject_name(certificate, subjectName) == 1,
              X509_set_issuer_name(certificate, issuer.map { X509_get_subject_name($0.pointer) } ?? subjectName) == 1
        else { throw CryptoError.openSSL("X509_set_subject_name/issuer_name") }

        try setValidity(certificate)

        var context = X509V3_CTX()
        X509V3_set_ctx(&context, issuer?.pointer ?? certificate, certificate, nil, nil, 0)
        for (nid, value) in extensions {
            guard let ext = X509V3_EXT_nconf_nid(nil, &context, nid, value) else {
                throw CryptoError.openSSL("X509V3_EXT_nconf_nid(\(String(cString: OBJ_nid2sn(nid))), \(value))")
            }
            defer { X509_EXTENSION_free(ext) }
            guard X509_add_ext(certificate, ext, -1) == 1 else { throw CryptoError.openSSL("X509_add_ext") }
        }
        for oid in markerOIDs {
            try addNullExtension(certificate, oid: oid, critical: markersAreCritical)
        }
    }

    private func setValidity(_ certificate: OpaquePointer) throws(CryptoError) {
        for (millis, isStart) in [(notBefore, true), (notAfter, false)] {
            guard let time = ASN1_TIME_set(nil, time_t(millis / 1000)) else {
                throw CryptoError.openSSL("ASN1_TIME_set(\(millis / 1000))")
            }
            defer { ASN1_TIME_free(time) }
            let set = isStart ? X509_set1_notBefore(certificate, time) : X509_set1_notAfter(certificate, time)
            guard set == 1 else { throw CryptoError.openSSL("X509_set1_notBefore/notAfter") }
        }
    }

    /// Adds an extension whose value is the DER of ASN.1 NULL (`05 00`).
    private func addNullExtension(_ certificate: OpaquePointer, oid: String, critical: Bool) throws(CryptoError) {
        guard let object = OBJ_txt2obj(oid, 1) else { throw CryptoError.openSSL("OBJ_txt2obj(\(oid))") }
        defer { ASN1_OBJECT_free(object) }
        guard let value = ASN1_OCTET_STRING_new() else { throw CryptoError.openSSL("ASN1_OCTET_STRING_new") }
        defer { ASN1_OCTET_STRING_free(value) }
        let null: [UInt8] = [0x05, 0x00]
        guard ASN1_OCTET_STRING_set(value, null, Int32(null.count)) == 1,
              let ext = X509_EXTENSION_create_by_OBJ(nil, object, critical ? 1 : 0, value)
        else { throw CryptoError.openSSL("X509_EXTENSION_create_by_OBJ(\(oid))") }
        defer { X509_EXTENSION_free(ext) }
        guard X509_add_ext(certificate, ext, -1) == 1 else { throw CryptoError.openSSL("X509_add_ext(\(oid))") }
    }
}
