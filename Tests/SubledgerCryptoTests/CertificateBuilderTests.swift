import SubledgerCrypto
import Testing

@Suite("CertificateBuilder issues an Apple-shaped hierarchy")
struct CertificateBuilderTests {
    static let start: Int64 = 1_735_689_600_000 // 2025-01-01T00:00:00Z
    static let end: Int64 = 1_798_761_600_000 // 2027-01-01T00:00:00Z

    let rootKey: ECPrivateKey
    let intermediateKey: ECPrivateKey
    let leafKey: ECPrivateKey
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate

    init() throws {
        rootKey = try ECPrivateKey(generating: .p384)
        intermediateKey = try ECPrivateKey(generating: .p384)
        leafKey = try ECPrivateKey(generating: .p256)
        root = try CertificateBuilder(profile: .root, subject: DistinguishedName(commonName: "Test Root", organization: "Subledger", country: "US"),
                                      serialNumber: 1, notBefore: Self.start, notAfter: Self.end)
            .selfSigned(key: rootKey)
        intermediate = try CertificateBuilder(profile: .intermediate, subject: DistinguishedName(commonName: "Test Intermediate", organizationalUnit: "G6"),
                                              serialNumber: 2, notBefore: Self.start, notAfter: Self.end)
            .issue(for: intermediateKey.publicKey, issuer: root, issuerKey: rootKey)
        leaf = try CertificateBuilder(profile: .leaf, subject: DistinguishedName(commonName: "Test Leaf"),
                                      serialNumber: 0xDEAD_BEEF, notBefore: Self.start, notAfter: Self.end)
            .issue(for: leafKey.publicKey, issuer: intermediate, issuerKey: intermediateKey)
    }

    @Test("the root is a self-signed P-384 CA without a path length or marker")
    func rootProfile() throws {
        #expect(root.isCA)
        #expect(root.pathLengthConstraint == nil)
        #expect(root.subjectName == root.issuerName)
        #expect(root.subjectName.description == "CN=Test Root, O=Subledger, C=US")
        #expect(root.isSigned(by: root))
        #expect(root.identifiesIssuer(root))
        let certifiedKey = try root.publicKey
        #expect(certifiedKey == rootKey.publicKey)
        #expect(!root.hasExtension(oid: AppleMarkerOID.intermediate))
        #expect(!root.hasExtension(oid: AppleMarkerOID.leaf))
    }

    @Test("the intermediate is a CA with pathlen 0 and the intermediate marker, issued and signed by the root")
    func intermediateProfile() throws {
        #expect(intermediate.isCA)
        #expect(intermediate.pathLengthConstraint == 0)
        #expect(intermediate.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(!intermediate.hasExtension(oid: "1.2.840.113635.100.6.11.1"))
        #expect(intermediate.issuerName == root.subjectName)
        #expect(intermediate.identifiesIssuer(root))
        #expect(intermediate.isSigned(by: root))
        let certifiedKey = try intermediate.publicKey
        #expect(certifiedKey.curve == .p384)
    }

    @Test("the leaf is a P-256 non-CA with the leaf marker, issued and signed by the intermediate only")
    func leafProfile() throws {
        #expect(!leaf.isCA)
        #expect(leaf.hasExtension(oid: "1.2.840.113635.100.6.11.1"))
        #expect(!leaf.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(leaf.identifiesIssuer(intermediate))
        #expect(leaf.isSigned(by: intermediate))
        #expect(!leaf.isSigned(by: root))
        let certifiedKey = try leaf.publicKey
        #expect(certifiedKey == leafKey.publicKey)
        #expect(certifiedKey.curve == .p256)
    }

    @Test("serial numbers and validity windows are written as configured, validity at whole seconds")
    func serialAndValidity() throws {
        #expect(leaf.serialNumber == "deadbeef")
        #expect(root.serialNumber == "01")
        let odd = try CertificateBuilder(profile: .leaf, subject: DistinguishedName(commonName: "Odd"), serialNumber: 7,
                                         notBefore: Self.start + 1_999, notAfter: Self.end + 999)
            .issue(for: leafKey.publicKey, issuer: intermediate, issuerKey: intermediateKey)
        #expect(odd.notBefore == Self.start + 1_000)
        #expect(odd.notAfter == Self.end)
    }

    @Test("marker OIDs can be left out or replaced")
    func markerOptions() throws {
        var builder = CertificateBuilder(profile: .leaf, subject: DistinguishedName(commonName: "No Marker"), serialNumber: 9,
                                         notBefore: Self.start, notAfter: Self.end)
        builder.markerOIDs = []
        let bare = try builder.issue(for: leafKey.publicKey, issuer: intermediate, issuerKey: intermediateKey)
        #expect(!bare.hasExtension(oid: AppleMarkerOID.leaf))
        builder.markerOIDs = ["1.2.3.4.5"]
        let other = try builder.issue(for: leafKey.publicKey, issuer: intermediate, issuerKey: intermediateKey)
        #expect(other.hasExtension(oid: "1.2.3.4.5"))
        #expect(!other.hasExtension(oid: AppleMarkerOID.leaf))
    }

    @Test("names keep their order and non-ASCII text")
    func names() throws {
        let name = DistinguishedName([.init("C", "CH"), .init("O", "Zürich Ledger AG"), .init("CN", "Größe")])
        let certificate = try CertificateBuilder(profile: .root, subject: name, serialNumber: 3, notBefore: Self.start, notAfter: Self.end)
            .selfSigned(key: rootKey)
        #expect(certificate.subjectName == name)
        #expect(certificate.subjectName.commonName == "Größe")
    }

    @Test("a same-named intermediate with another key is not the issuer: key identifiers and signature differ")
    func sameNameOtherKey() throws {
        let otherKey = try ECPrivateKey(generating: .p384)
        let impostor = try CertificateBuilder(profile: .intermediate, subject: intermediate.subjectName, serialNumber: 2,
                                              notBefore: Self.start, notAfter: Self.end)
            .issue(for: otherKey.publicKey, issuer: root, issuerKey: rootKey)
        #expect(impostor.subjectName == intermediate.subjectName)
        #expect(!leaf.isSigned(by: impostor))
        #expect(!leaf.identifiesIssuer(impostor))
    }

    @Test("a CryptoError names the failing operation")
    func errorMessage() throws {
        let builder = CertificateBuilder(profile: .root, subject: DistinguishedName([.init("NoSuchAttribute", "x")]), serialNumber: 1,
                                         notBefore: Self.start, notAfter: Self.end)
        let error = #expect(throws: CryptoError.self) { try builder.selfSigned(key: rootKey) }
        #expect(error?.message.contains("X509_NAME_add_entry_by_txt") == true)
    }
}
