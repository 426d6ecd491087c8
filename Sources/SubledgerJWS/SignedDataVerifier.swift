import SubledgerCore
import SubledgerCrypto

/// Verifies App Store signed data (compact JWS, ES256, `x5c` chain) the way Apple's
/// `SignedDataVerifier` does offline, and stricter:
///
/// - `alg` must be `ES256`; `x5c` must hold exactly 3 certificates;
/// - `x5c[2]` is never trusted: the intermediate `x5c[1]` must be issued and signed by one of the
///   configured roots, and the leaf `x5c[0]` by that intermediate (names, key identifiers and
///   signatures checked);
/// - the intermediate must be a CA carrying OID 1.2.840.113635.100.6.2.1, the leaf must not be
///   a CA and must carry OID 1.2.840.113635.100.6.11.1 with a P-256 key;
/// - leaf, intermediate and root must all be valid at the given instant;
/// - the signature must be 64 bytes of raw `r || s` that verify with the leaf key over
///   `header_b64.payload_b64`.
///
/// Data signed on a developer's machine (Xcode's StoreKit testing, environments `Xcode` and
/// `LocalTesting`) carries one self-signed certificate in `x5c`, where Apple's library skips
/// verification altogether. When the caller allows it for a message (`allowingLocalSigner`), such
/// a message verifies when that certificate is, byte for byte, one of the configured roots, is
/// valid at the instant and its key made the signature.
///
/// Chains that passed are cached (keyed by SHA-256 of the two certificates' base64 text, which
/// ``ParsedJWSHeader`` computes once per distinct header) with the leaf key and the three
/// validity windows, so verifying another message from a known chain costs one validity
/// comparison and one ECDSA verification. Once a message under a leaf key has verified, the
/// key's multiples are precomputed (``ES256KeyTable``: 17 ms and about 150 KB once per key, then
/// about a third of libcrypto's time a verification). Tables are kept by the key, not the chain,
/// and only for keys that signed a message: the certificates' encodings are not unique, so one
/// genuine chain can be written many ways, and each way would otherwise cost a table. Safe to
/// share between threads.
public final class SignedDataVerifier: Sendable {
    public static let defaultCacheCapacity = 1024

    public let trustedRoots: [Certificate]
    private let cache: Lock<OldestFirstCache<VerifiedChain>>
    /// Precomputed leaf keys by their DER SubjectPublicKeyInfo: Apple signs with a handful.
    private let keyTables = Lock(OldestFirstCache<ES256KeyTable>(capacity: 16))

    /// Leaf keys whose multiples are precomputed.
    var precomputedKeys: Int { keyTables.withLock { $0.count } }

    /// - Parameters:
    ///   - trustedRoots: the configured roots, normally Apple Root CA - G3.
    ///   - cacheCapacity: verified chains remembered; Apple rotates its leaf about every two
    ///     years, so a handful are in use at any time.
    public init(trustedRoots: [Certificate], cacheCapacity: Int = SignedDataVerifier.defaultCacheCapacity) {
        precondition(cacheCapacity > 0, "cacheCapacity must be positive")
        self.trustedRoots = trustedRoots
        cache = Lock(OldestFirstCache(capacity: cacheCapacity))
    }

    /// Verifies `jws` with every certificate's validity evaluated at `instantMillis` (epoch
    /// milliseconds; for App Store data, the payload's `signedDate`). `allowingLocalSigner`: the
    /// message may be signed by one configured root alone, as Xcode's StoreKit testing signs.
    public func verify(_ jws: CompactJWS, at instantMillis: Int64, allowingLocalSigner: Bool = false) throws(VerificationError) {
        guard jws.algorithm == "ES256" else {
            throw VerificationError(.unsupportedAlgorithm, "the JWS header says alg \"\(jws.algorithm)\"; App Store signed data uses ES256 only")
        }
        if jws.x5c.count == 1, allowingLocalSigner {
            return try verifyLocallySigned(jws, at: instantMillis)
        }
        guard jws.x5c.count == 3 else {
            let local = jws.x5c.count == 1 ? "; Xcode's StoreKit testing signs with one certificate, which only a message of the Xcode or LocalTesting environment may, in a ledger that accepts that environment (`subledger init --environment Xcode --root CERT`)" : ""
            throw VerificationError(.chainInvalid, "the JWS x5c header holds \(jws.x5c.count) certificates; App Store signed data carries exactly 3 (leaf, intermediate, root)\(local)")
        }
        let key = jws.header.chainKey
        let chain: VerifiedChain
        if let cached = cache.withLock({ $0[key] }) {
            chain = cached
        } else {
            chain = try verifyChain(leafBase64: jws.x5c[0], intermediateBase64: jws.x5c[1], rootBase64: jws.x5c[2])
            cache.withLock { $0.insert(chain, for: key) }
        }
        try chain.checkValidity(at: instantMillis)
        try checkSignature(of: jws, under: chain)
    }

    /// A message signed by the one certificate in its `x5c`, which must be a configured root.
    private func verifyLocallySigned(_ jws: CompactJWS, at instantMillis: Int64) throws(VerificationError) {
        let certificate = try Self.certificate(jws.x5c[0], role: "x5c[0]")
        guard trustedRoots.contains(where: { $0.der == certificate.der }) else {
            let configured = trustedRoots.isEmpty ? "none" : trustedRoots.map(\.fingerprintLabel).joined(separator: "; ")
            throw VerificationError(.chainUntrusted, "the message is signed by one certificate (\(certificate.fingerprintLabel)), as Xcode's StoreKit testing signs, and it is not a configured root (configured: \(configured)); to trust it, run `subledger init` with it as --root CERT (in Xcode, Editor > Save Public Certificate), beside every other root to trust")
        }
        let key = try Self.signingKey(of: certificate, role: "certificate")
        let chain = VerifiedChain(leafKey: key, leafKeyID: key.subjectPublicKeyInfo, certificates: [.init(role: "signing", certificate: certificate)])
        try chain.checkValidity(at: instantMillis)
        try checkSignature(of: jws, under: chain)
    }

    private func checkSignature(of jws: CompactJWS, under chain: VerifiedChain) throws(VerificationError) {
        guard jws.signature.count == ECPublicKey.es256SignatureCount else {
            throw VerificationError(.signatureInvalid, "the JWS signature is \(jws.signature.count) bytes; ES256 signatures are \(ECPublicKey.es256SignatureCount) bytes (raw r||s); the message was truncated or altered")
        }
        let table = keyTables.withLock { $0[chain.leafKeyID] }
        let verified = jws.signingInputDigest().withUnsafeBytes { digest in
            jws.signature.withUnsafeBytes { signature in
                table?.verify(signature: signature, digest: digest) ?? chain.leafKey.verifyES256(signature: signature, digest: digest)
            }
        }
        guard verified else {
            throw VerificationError(.signatureInvalid, "the ES256 signature does not match the header and payload under the leaf certificate's key; the message was altered or not signed by Apple")
        }
        // Without a table, verification is only slower: a key whose table cannot be built
        // goes on verifying through libcrypto.
        if table == nil, let built = try? ES256KeyTable(chain.leafKey) {
            keyTables.withLock { $0.insert(built, for: chain.leafKeyID) }
        }
    }

    /// Everything about the chain that does not depend on the instant.
    /// `rootBase64` (x5c[2]) is never trusted: it is only named when the chain is not.
    private func verifyChain(leafBase64: [UInt8], intermediateBase64: [UInt8], rootBase64: [UInt8]) throws(VerificationError) -> VerifiedChain {
        let leaf = try Self.certificate(leafBase64, role: "leaf x5c[0]")
        let intermediate = try Self.certificate(intermediateBase64, role: "intermediate x5c[1]")

        guard let root = trustedRoots.first(where: { intermediate.identifiesIssuer($0) && intermediate.isSigned(by: $0) }) else {
            let configured = trustedRoots.isEmpty ? "none" : trustedRoots.map(\.fingerprintLabel).joined(separator: "; ")
            let brought = Base64.decode(rootBase64).flatMap { try? Certificate(der: $0) }.map { "; the message's x5c[2] is \($0.fingerprintLabel)" } ?? ""
            // The roots given to init replace the configured ones: naming one alone would drop the others.
            throw VerificationError(.chainUntrusted, "the x5c intermediate (\(Self.label(intermediate)), issued by \(intermediate.issuerName)) is not issued by any configured root (configured: \(configured))\(brought); to trust its root too, run `subledger init` with every root to trust, each as --root CERT (the roots given replace the configured ones)")
        }
        guard leaf.identifiesIssuer(intermediate), leaf.isSigned(by: intermediate) else {
            throw VerificationError(.chainInvalid, "the x5c leaf (\(Self.label(leaf)), issued by \(leaf.issuerName)) is not issued by the x5c intermediate (\(Self.label(intermediate))); the chain was assembled from unrelated certificates")
        }
        // What OpenSSL's strict path check refuses beside these, as Apple's libraries do.
        if let flaw = Self.flaw(asRoot: root) {
            throw VerificationError(.chainInvalid, "the configured root (\(root.fingerprintLabel)) cannot anchor the chain: \(flaw)")
        }
        guard intermediate.isCA else {
            throw VerificationError(.chainInvalid, "the x5c intermediate (\(Self.label(intermediate))) is not a CA certificate")
        }
        guard !leaf.isCA else {
            throw VerificationError(.chainInvalid, "the x5c leaf (\(Self.label(leaf))) is a CA certificate; Apple's signing leaf is not")
        }
        for (certificate, role) in [(leaf, "leaf"), (intermediate, "intermediate")] where certificate.hasUnknownCriticalExtension {
            throw VerificationError(.chainInvalid, "the x5c \(role) (\(Self.label(certificate))) has an extension marked critical that is not understood; RFC 5280 requires refusing it")
        }
        guard leaf.allowsDigitalSignature else {
            throw VerificationError(.chainInvalid, "the x5c leaf (\(Self.label(leaf))) may not sign: its keyUsage leaves out digitalSignature")
        }
        guard intermediate.hasExtension(oid: AppleMarkerOID.intermediate) else {
            throw VerificationError(.missingMarkerOID, "the x5c intermediate (\(Self.label(intermediate))) lacks Apple's marker extension \(AppleMarkerOID.intermediate); it is not an Apple App Store signing CA")
        }
        guard leaf.hasExtension(oid: AppleMarkerOID.leaf) else {
            throw VerificationError(.missingMarkerOID, "the x5c leaf (\(Self.label(leaf))) lacks Apple's marker extension \(AppleMarkerOID.leaf); it is not an App Store signing certificate")
        }
        let leafKey = try Self.signingKey(of: leaf, role: "leaf")
        return VerifiedChain(leafKey: leafKey, leafKeyID: leafKey.subjectPublicKeyInfo, certificates: [
            .init(role: "leaf", certificate: leaf),
            .init(role: "intermediate", certificate: intermediate),
            .init(role: "root", certificate: root),
        ])
    }

    /// Why `root` cannot anchor an App Store chain (root, intermediate CA, leaf), or nil: what
    /// OpenSSL's strict check asks of a trust anchor. `init --root` asks it before trusting one.
    public static func flaw(asRoot root: Certificate) -> String? {
        if !root.isCA { return "it is not a CA" }
        if root.subjectName != root.issuerName { return "it is not self-issued (issued by \(root.issuerName))" }
        if !root.identifiesIssuer(root) { return "its key usage or key identifiers do not let it issue certificates" }
        if root.pathLengthConstraint == 0 { return "its pathLen 0 allows no intermediate CA, and Apple's chain has one" }
        if root.hasUnknownCriticalExtension { return "it has an extension marked critical that is not understood (RFC 5280 requires refusing it)" }
        return nil
    }

    /// Why `certificate` cannot sign messages alone, as Xcode's StoreKit testing certificate
    /// does (`verify(_:at:allowingLocalSigner:)`), or nil.
    public static func flaw(asLocalSigner certificate: Certificate) -> String? {
        if certificate.subjectName != certificate.issuerName || !certificate.isSigned(by: certificate) { return "it is not self-signed" }
        guard let key = try? certificate.publicKey, key.curve == .p256 else { return "its key is not P-256, which ES256 signatures need" }
        if certificate.hasUnknownCriticalExtension { return "it has an extension marked critical that is not understood (RFC 5280 requires refusing it)" }
        return nil
    }

    /// The certificate's key, which must be P-256 to have made an ES256 signature.
    private static func signingKey(of certificate: Certificate, role: String) throws(VerificationError) -> ECPublicKey {
        let key: ECPublicKey
        do {
            key = try certificate.publicKey
        } catch {
            throw VerificationError(.chainInvalid, "the x5c \(role)'s key is unusable: \(error.message)")
        }
        guard key.curve == .p256 else {
            throw VerificationError(.chainInvalid, "the x5c \(role) has a \(key.curve.rawValue) key; ES256 needs P-256")
        }
        return key
    }

    private static func certificate(_ base64: [UInt8], role: String) throws(VerificationError) -> Certificate {
        guard let der = Base64.decode(base64) else {
            throw VerificationError(.chainInvalid, "the \(role) certificate is not standard padded base64")
        }
        do {
            return try Certificate(der: der)
        } catch {
            throw VerificationError(.chainInvalid, "the \(role) certificate is not a DER X.509 certificate: \(error.message)")
        }
    }

    private static func label(_ certificate: Certificate) -> String {
        certificate.subjectName.commonName ?? certificate.subjectName.description
    }

}

/// A chain that passed every instant-independent check.
struct VerifiedChain: Sendable {
    struct Window: Sendable {
        let role: String
        let name: String
        let serialNumber: String
        let notBefore: Int64
        let notAfter: Int64

        init(role: String, certificate: Certificate) {
            self.role = role
            name = certificate.subjectName.commonName ?? certificate.subjectName.description
            serialNumber = certificate.serialNumber
            notBefore = certificate.notBefore
            notAfter = certificate.notAfter
        }
    }

    let leafKey: ECPublicKey
    /// The leaf key's DER SubjectPublicKeyInfo: what its precomputed table is kept under.
    let leafKeyID: [UInt8]
    /// Leaf, intermediate, root: checked in that order.
    let certificates: [Window]

    func checkValidity(at instant: Int64) throws(VerificationError) {
        for window in certificates where !(window.notBefore <= instant && instant <= window.notAfter) {
            let relation = instant < window.notBefore ? "not yet valid" : "expired"
            throw VerificationError(.certificateExpired, "the \(window.role) certificate (\(window.name), serial \(window.serialNumber)) is valid from \(UTCInstant.iso8601(window.notBefore)) to \(UTCInstant.iso8601(window.notAfter)); at \(UTCInstant.iso8601(instant)) it is \(relation); check the instant used (the payload's signedDate) and the machine clock")
        }
    }
}

/// Values by key, evicting the oldest entry when full.
struct OldestFirstCache<Value: Sendable>: Sendable {
    let capacity: Int
    private var values: [[UInt8]: Value] = [:]
    /// Keys in insertion order, used as a ring once `capacity` is reached.
    private var order: [[UInt8]] = []
    private var oldest = 0

    init(capacity: Int) {
        self.capacity = capacity
    }

    subscript(key: [UInt8]) -> Value? {
        values[key]
    }

    var count: Int { values.count }

    mutating func insert(_ value: Value, for key: [UInt8]) {
        guard values[key] == nil else { return }
        if order.count < capacity {
            order.append(key)
        } else {
            values[order[oldest]] = nil
            order[oldest] = key
            oldest = (oldest + 1) % capacity
        }
        values[key] = value
    }
}
