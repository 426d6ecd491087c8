import Foundation
import SubledgerCrypto
import SubledgerJWS
import Testing

/// Every forgery Apple's verifier rejects, made with our own test PKI.
@Suite("SignedDataVerifier with a test PKI")
struct SignedDataVerifierTests {
    static let validity = Instant.y2025...Instant.y2027
    static let instant = Instant.y2026

    let pki: TestPKI
    let verifier: SignedDataVerifier
    let payload = Forge.payload(signedDate: Self.instant)

    init() throws {
        pki = try TestPKI(validity: Self.validity)
        verifier = SignedDataVerifier(trustedRoots: [pki.root])
    }

    @Test("a message signed by the test PKI verifies against its root, also a second time from the chain cache")
    func accepts() throws {
        let text = pki.signer.sign(payload: payload)
        #expect(verifier.rejection(text, at: Self.instant) == nil)
        #expect(verifier.rejection(pki.signer.sign(payload: Forge.payload(signedDate: Self.instant, transactionId: "2")), at: Self.instant) == nil)
        #expect(verifier.rejection(text, at: Self.instant) == nil)
    }

    @Test("one self-signed certificate in x5c, as Xcode's StoreKit testing signs, verifies only where allowed, when it is a configured root with a P-256 key valid at the instant that made the signature")
    func locallySigned() throws {
        let key = try ECPrivateKey(generating: .p256)
        func selfSigned(_ key: ECPrivateKey) throws -> Certificate {
            try CertificateBuilder(profile: .root, subject: DistinguishedName(commonName: "StoreKit Testing in Xcode"), serialNumber: 7,
                                   notBefore: Self.validity.lowerBound, notAfter: Self.validity.upperBound).selfSigned(key: key)
        }
        let certificate = try selfSigned(key)
        let local = SignedDataVerifier(trustedRoots: [pki.root, certificate])
        let text = JWSSigner(key: key, x5c: [certificate.der]).sign(payload: payload)
        #expect(local.rejection(text, at: Self.instant, allowingLocalSigner: true) == nil)
        #expect(local.rejection(text, at: Self.instant) == .chainInvalid)
        #expect(local.rejection(text, at: Instant.y2027 + 86_400_000, allowingLocalSigner: true) == .certificateExpired)
        #expect(verifier.rejection(text, at: Self.instant, allowingLocalSigner: true) == .chainUntrusted)
        let other = try ECPrivateKey(generating: .p256)
        #expect(local.rejection(JWSSigner(key: other, x5c: [certificate.der]).sign(payload: payload), at: Self.instant, allowingLocalSigner: true) == .signatureInvalid)
        // A configured root that is no P-256 key cannot have made an ES256 signature.
        let p384 = try selfSigned(try ECPrivateKey(generating: .p384))
        let wide = try Forge.jws(headerJSON: Forge.header(x5c: [p384.der]), payload: payload, key: key)
        #expect(SignedDataVerifier(trustedRoots: [p384]).rejection(wide, at: Self.instant, allowingLocalSigner: true) == .chainInvalid)
        // Allowing it loosens nothing else: Apple's chain is checked as ever.
        #expect(local.rejection(pki.signer.sign(payload: payload), at: Self.instant, allowingLocalSigner: true) == nil)
        let twoOfThree = JWSSigner(key: pki.leafKey, x5c: [pki.leaf.der, pki.intermediate.der]).sign(payload: payload)
        #expect(local.rejection(twoOfThree, at: Self.instant, allowingLocalSigner: true) == .chainInvalid)
    }

    @Test("a tampered payload fails the signature, also when the chain is already cached")
    func tamperedPayload() throws {
        let text = pki.signer.sign(payload: payload)
        let tampered = Forge.replacingPart(1, of: text, with: Base64URL.encode(Forge.payload(signedDate: Self.instant, transactionId: "9999")))
        #expect(verifier.rejection(tampered, at: Self.instant) == .signatureInvalid)
        #expect(verifier.rejection(text, at: Self.instant) == nil)
        #expect(verifier.rejection(tampered, at: Self.instant) == .signatureInvalid)
    }

    @Test("a signature that is not 64 bytes is signature_invalid", arguments: [0, 32, 58, 63, 65, 72])
    func wrongSignatureLength(_ count: Int) throws {
        let text = pki.signer.sign(payload: payload)
        let signature = try CompactJWS(text).signature
        let resized = Array((signature + signature).prefix(count))
        #expect(verifier.rejection(Forge.replacingPart(2, of: text, with: Base64URL.encode(resized)), at: Self.instant) == .signatureInvalid)
    }

    @Test("a root with Apple's exact names but another key is untrusted")
    func wrongRootSameNames() throws {
        let impostor = try TestPKI(validity: Self.validity)
        #expect(impostor.root.subjectName == pki.root.subjectName)
        #expect(impostor.intermediate.subjectName == pki.intermediate.subjectName)
        let error = try #require(verifier.error(impostor.signer.sign(payload: payload), at: Self.instant))
        #expect(error.reason == .chainUntrusted)
        // The same names in both hierarchies: only the fingerprints tell the roots apart.
        func fingerprint(_ der: [UInt8]) -> String { SHA256.hash(der).prefix(8).map { String(format: "%02X", $0) }.joined(separator: ":") }
        #expect(error.detail.contains("configured: Apple Root CA - G3, SHA-256 \(fingerprint(pki.root.der))…"))
        #expect(error.detail.contains("the message's x5c[2] is Apple Root CA - G3, SHA-256 \(fingerprint(impostor.root.der))…"))
    }

    @Test("x5c[2] is never trusted: a forged chain carrying the configured root's own certificate is still untrusted")
    func x5cRootIgnored() throws {
        let impostor = try TestPKI(validity: Self.validity)
        let signer = JWSSigner(key: impostor.leafKey, x5c: [impostor.leaf.der, impostor.intermediate.der, pki.root.der])
        #expect(verifier.rejection(signer.sign(payload: payload), at: Self.instant) == .chainUntrusted)
    }

    @Test("x5c[2] may be anything: a genuine chain verifies whatever its third entry holds")
    func x5cRootNotRequired() throws {
        let signer = JWSSigner(key: pki.leafKey, x5c: [pki.leaf.der, pki.intermediate.der, [0x30, 0x00]])
        #expect(verifier.rejection(signer.sign(payload: payload), at: Self.instant) == nil)
    }

    @Test("with no configured root nothing is trusted")
    func noRoots() throws {
        let empty = SignedDataVerifier(trustedRoots: [])
        let error = try #require(empty.error(pki.signer.sign(payload: payload), at: Self.instant))
        #expect(error.reason == .chainUntrusted)
        #expect(error.detail.contains("configured: none"))
    }

    @Test("any of several configured roots can anchor the chain")
    func severalRoots() throws {
        let other = try TestPKI(validity: Self.validity)
        let both = SignedDataVerifier(trustedRoots: [other.root, pki.root])
        #expect(both.rejection(pki.signer.sign(payload: payload), at: Self.instant) == nil)
        #expect(both.rejection(other.signer.sign(payload: payload), at: Self.instant) == nil)
    }

    @Test("a leaf without Apple's leaf marker OID is missing_marker_oid")
    func missingLeafMarker() throws {
        var options = TestPKI.Options(validity: Self.validity)
        options.leafHasMarkerOID = false
        let bare = try TestPKI(options)
        let error = try #require(SignedDataVerifier(trustedRoots: [bare.root]).error(bare.signer.sign(payload: payload), at: Self.instant))
        #expect(error.reason == .missingMarkerOID)
        #expect(error.detail.contains("1.2.840.113635.100.6.11.1"))
    }

    enum StrictPathCase: String, CaseIterable, CustomTestStringConvertible {
        case leafMarkerCritical, leafMaySignCertificatesOnly, rootLimitedToNoIntermediate, rootNotCA
        var testDescription: String { rawValue }

        func apply(to options: inout TestPKI.Options) {
            switch self {
            case .leafMarkerCritical: options.leafMarkerIsCritical = true
            case .leafMaySignCertificatesOnly: options.leafKeyUsage = "critical,keyCertSign"
            case .rootLimitedToNoIntermediate: options.rootBasicConstraints = "critical,CA:TRUE,pathlen:0"
            case .rootNotCA: options.rootBasicConstraints = "critical,CA:FALSE"
            }
        }

        var detail: String {
            switch self {
            case .leafMarkerCritical: "marked critical"
            case .leafMaySignCertificatesOnly: "digitalSignature"
            case .rootLimitedToNoIntermediate: "pathLen 0"
            case .rootNotCA: "not a CA"
            }
        }
    }

    @Test("what OpenSSL's strict path check refuses is chain_invalid: an unknown critical extension, a leaf whose keyUsage leaves out digitalSignature, a root that is no CA or allows no intermediate", arguments: StrictPathCase.allCases)
    func strictPath(_ variant: StrictPathCase) throws {
        var options = TestPKI.Options(validity: Self.validity)
        variant.apply(to: &options)
        let pki = try TestPKI(options)
        let error = try #require(SignedDataVerifier(trustedRoots: [pki.root]).error(pki.signer.sign(payload: payload), at: Self.instant))
        #expect(error.reason == .chainInvalid)
        #expect(error.detail.contains(variant.detail), "\(error.detail)")
    }

    @Test("an intermediate without Apple's intermediate marker OID is missing_marker_oid")
    func missingIntermediateMarker() throws {
        var options = TestPKI.Options(validity: Self.validity)
        options.intermediateHasMarkerOID = false
        let bare = try TestPKI(options)
        let error = try #require(SignedDataVerifier(trustedRoots: [bare.root]).error(bare.signer.sign(payload: payload), at: Self.instant))
        #expect(error.reason == .missingMarkerOID)
        #expect(error.detail.contains("1.2.840.113635.100.6.2.1"))
    }

    @Test("x5c with other than 3 certificates is chain_invalid", arguments: [0, 1, 2, 4])
    func chainLength(_ count: Int) throws {
        let certificates = [pki.leaf.der, pki.intermediate.der, pki.root.der, pki.root.der]
        let signer = JWSSigner(key: pki.leafKey, x5c: Array(certificates.prefix(count)))
        #expect(verifier.rejection(signer.sign(payload: payload), at: Self.instant) == .chainInvalid)
    }

    @Test("x5c entries that are not base64 DER certificates are chain_invalid; a leaf posing as intermediate is untrusted")
    func garbageCertificates() throws {
        let leafText = String(decoding: Base64.encode(pki.leaf.der), as: UTF8.self)
        let intermediateText = String(decoding: Base64.encode(pki.intermediate.der), as: UTF8.self)
        let notBase64 = try Forge.jws(headerJSON: #"{"alg":"ES256","x5c":["not base64!","\#(intermediateText)","x"]}"#, payload: payload, key: pki.leafKey)
        #expect(verifier.rejection(notBase64, at: Self.instant) == .chainInvalid)
        let notCertificate = try Forge.jws(headerJSON: #"{"alg":"ES256","x5c":["\#(leafText)","MAA=","x"]}"#, payload: payload, key: pki.leafKey)
        #expect(verifier.rejection(notCertificate, at: Self.instant) == .chainInvalid)
        // A leaf in the intermediate position is not issued by the root.
        let leafTwice = try Forge.jws(headerJSON: #"{"alg":"ES256","x5c":["\#(leafText)","\#(leafText)","x"]}"#, payload: payload, key: pki.leafKey)
        #expect(verifier.rejection(leafTwice, at: Self.instant) == .chainUntrusted)
    }

    @Test("alg other than ES256 is unsupported_algorithm", arguments: ["none", "HS256", "RS256", "ES384", "es256", ""])
    func unsupportedAlgorithm(_ alg: String) throws {
        let text = try Forge.jws(headerJSON: Forge.header(alg: alg, x5c: [pki.leaf.der, pki.intermediate.der, pki.root.der]), payload: payload, key: pki.leafKey)
        #expect(verifier.rejection(text, at: Self.instant) == .unsupportedAlgorithm)
    }

    @Test("alg none with an empty signature is unsupported_algorithm")
    func algNoneUnsigned() throws {
        let header = Base64URL.encode(Array(Forge.header(alg: "none", x5c: [pki.leaf.der, pki.intermediate.der, pki.root.der]).utf8))
        let text = header + [UInt8(ascii: ".")] + Base64URL.encode(payload) + [UInt8(ascii: ".")]
        #expect(verifier.rejection(text, at: Self.instant) == .unsupportedAlgorithm)
    }

    @Test("the leaf's validity is checked at the given instant, inclusive at both ends")
    func leafValidity() throws {
        var options = TestPKI.Options(validity: Self.validity)
        options.leafValidity = (Instant.y2026 - 86_400_000)...(Instant.y2026 + 86_400_000)
        let narrow = try TestPKI(options)
        let verifier = SignedDataVerifier(trustedRoots: [narrow.root])
        let text = narrow.signer.sign(payload: payload)
        #expect(verifier.rejection(text, at: options.leafValidity.lowerBound) == nil)
        #expect(verifier.rejection(text, at: options.leafValidity.upperBound) == nil)
        let early = try #require(verifier.error(text, at: options.leafValidity.lowerBound - 1))
        #expect(early.reason == .certificateExpired)
        #expect(early.detail.contains("leaf certificate"))
        #expect(early.detail.contains("not yet valid"))
        let late = try #require(verifier.error(text, at: options.leafValidity.upperBound + 1))
        #expect(late.reason == .certificateExpired)
        #expect(late.detail.contains("leaf certificate"))
        #expect(late.detail.contains("2026-01-02T00:00:00.000Z"))
    }

    @Test("the intermediate's and the configured root's validity are checked too, and the detail names which one")
    func caValidity() throws {
        let after = Instant.y2026 + 1
        var intermediateOptions = TestPKI.Options(validity: Self.validity)
        intermediateOptions.intermediateValidity = Instant.y2025...Instant.y2026
        let shortIntermediate = try TestPKI(intermediateOptions)
        let intermediateError = try #require(SignedDataVerifier(trustedRoots: [shortIntermediate.root])
            .error(shortIntermediate.signer.sign(payload: payload), at: after))
        #expect(intermediateError.reason == .certificateExpired)
        #expect(intermediateError.detail.contains("intermediate certificate"))

        var rootOptions = TestPKI.Options(validity: Self.validity)
        rootOptions.rootValidity = Instant.y2025...Instant.y2026
        let shortRoot = try TestPKI(rootOptions)
        let rootError = try #require(SignedDataVerifier(trustedRoots: [shortRoot.root])
            .error(shortRoot.signer.sign(payload: payload), at: after))
        #expect(rootError.reason == .certificateExpired)
        #expect(rootError.detail.contains("root certificate"))
    }

    @Test("a leaf issued by a different intermediate than the x5c one is chain_invalid")
    func leafFromOtherIntermediate() throws {
        let otherIntermediateKey = try ECPrivateKey(generating: .p384)
        let otherIntermediate = try CertificateBuilder(profile: .intermediate, subject: pki.intermediate.subjectName, serialNumber: 77,
                                                       notBefore: Instant.y2025, notAfter: Instant.y2027)
            .issue(for: otherIntermediateKey.publicKey, issuer: pki.root, issuerKey: pki.rootKey)
        let otherLeafKey = try ECPrivateKey(generating: .p256)
        let otherLeaf = try CertificateBuilder(profile: .leaf, subject: pki.leaf.subjectName, serialNumber: 78,
                                               notBefore: Instant.y2025, notAfter: Instant.y2027)
            .issue(for: otherLeafKey.publicKey, issuer: otherIntermediate, issuerKey: otherIntermediateKey)
        // Genuine on its own: the other intermediate is also issued by the trusted root.
        let genuine = JWSSigner(key: otherLeafKey, x5c: [otherLeaf.der, otherIntermediate.der, pki.root.der])
        #expect(verifier.rejection(genuine.sign(payload: payload), at: Self.instant) == nil)
        let mixed = JWSSigner(key: otherLeafKey, x5c: [otherLeaf.der, pki.intermediate.der, pki.root.der])
        #expect(verifier.rejection(mixed.sign(payload: payload), at: Self.instant) == .chainInvalid)
    }

    @Test("a leaf that is a CA certificate is chain_invalid, even with the leaf marker and a P-256 key")
    func caAsLeaf() throws {
        let key = try ECPrivateKey(generating: .p256)
        var builder = CertificateBuilder(profile: .intermediate, subject: pki.leaf.subjectName, serialNumber: 79,
                                         notBefore: Instant.y2025, notAfter: Instant.y2027)
        builder.markerOIDs = [AppleMarkerOID.leaf]
        let caLeaf = try builder.issue(for: key.publicKey, issuer: pki.intermediate, issuerKey: pki.intermediateKey)
        let signer = JWSSigner(key: key, x5c: [caLeaf.der, pki.intermediate.der, pki.root.der])
        let error = try #require(verifier.error(signer.sign(payload: payload), at: Self.instant))
        #expect(error.reason == .chainInvalid)
        #expect(error.detail.contains("is a CA certificate"))
    }

    @Test("an intermediate that is not a CA is chain_invalid, even with the intermediate marker")
    func nonCAIntermediate() throws {
        let intermediateKey = try ECPrivateKey(generating: .p256)
        var builder = CertificateBuilder(profile: .leaf, subject: pki.intermediate.subjectName, serialNumber: 80,
                                         notBefore: Instant.y2025, notAfter: Instant.y2027)
        builder.markerOIDs = [AppleMarkerOID.intermediate]
        let intermediate = try builder.issue(for: intermediateKey.publicKey, issuer: pki.root, issuerKey: pki.rootKey)
        let leafKey = try ECPrivateKey(generating: .p256)
        let leaf = try CertificateBuilder(profile: .leaf, subject: pki.leaf.subjectName, serialNumber: 81,
                                          notBefore: Instant.y2025, notAfter: Instant.y2027)
            .issue(for: leafKey.publicKey, issuer: intermediate, issuerKey: intermediateKey)
        let signer = JWSSigner(key: leafKey, x5c: [leaf.der, intermediate.der, pki.root.der])
        #expect(verifier.rejection(signer.sign(payload: payload), at: Self.instant) == .chainInvalid)
    }

    @Test("a message signed by another key than the leaf's is signature_invalid")
    func signedByOtherKey() throws {
        let thief = try ECPrivateKey(generating: .p256)
        let signer = JWSSigner(key: thief, x5c: [pki.leaf.der, pki.intermediate.der, pki.root.der])
        #expect(verifier.rejection(signer.sign(payload: payload), at: Self.instant) == .signatureInvalid)
    }

    @Test("a cache smaller than the number of chains in use keeps every decision correct")
    func tinyCache() throws {
        let other = try TestPKI(validity: Self.validity)
        let verifier = SignedDataVerifier(trustedRoots: [pki.root, other.root], cacheCapacity: 1)
        for round in 0..<3 {
            for issuer in [pki, other] {
                let text = issuer.signer.sign(payload: Forge.payload(signedDate: Self.instant, transactionId: "\(round)"))
                #expect(verifier.rejection(text, at: Self.instant) == nil)
                #expect(verifier.rejection(Forge.replacingPart(1, of: text, with: Base64URL.encode(payload)), at: Self.instant) == .signatureInvalid)
                #expect(verifier.rejection(text, at: Instant.y2027 + 1) == .certificateExpired)
            }
        }
    }

    @Test("one verifier gives the same decisions when shared by concurrent tasks")
    func concurrent() async throws {
        let good = pki.signer.sign(payload: payload)
        let bad = Forge.replacingPart(1, of: good, with: Base64URL.encode(Forge.payload(signedDate: 1)))
        let verifier = self.verifier
        let outcomes = await withTaskGroup(of: [VerificationError.Reason?].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    (0..<25).flatMap { _ in [verifier.rejection(good, at: Self.instant), verifier.rejection(bad, at: Self.instant)] }
                }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        #expect(outcomes.count == 400)
        #expect(outcomes.filter { $0 == nil }.count == 200)
        #expect(outcomes.filter { $0 == .signatureInvalid }.count == 200)
    }

    @Test("reason codes are the contract's")
    func reasonCodes() {
        #expect(VerificationError.Reason.allCases.map(\.rawValue) == [
            "malformed_json", "not_jws", "unsupported_algorithm", "chain_invalid", "chain_untrusted", "certificate_expired",
            "missing_marker_oid", "signature_invalid", "bundle_mismatch", "app_apple_id_mismatch", "environment_not_accepted", "payload_invalid",
        ])
        #expect(VerificationError(.signatureInvalid, "details").description == "signature_invalid: details")
    }
}
