import Foundation
import SubledgerCrypto
import Testing

@Suite("Certificate parsing and chain checks on Apple's real certificates",
       .enabled(if: TestData.conformance != nil, "\(TestData.conformanceMissing)"))
struct AppleCertificateTests {
    let root: Certificate
    let intermediate: Certificate
    let leaf: Certificate

    init() throws {
        let directory = try #require(TestData.conformance).appendingPathComponent("apple")
        root = try Certificate(der: TestData.bytes(directory.appendingPathComponent("AppleRootCA-G3.cer")))
        // The x5c of a real notification, read with Foundation independently of the JWS module.
        let jws = try String(contentsOf: directory.appendingPathComponent("notification-CONSUMPTION_REQUEST-none-15101c57.jws"), encoding: .utf8)
        var header = String(jws.split(separator: ".")[0]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        header += String(repeating: "=", count: (4 - header.count % 4) % 4)
        let object = try JSONSerialization.jsonObject(with: try #require(Data(base64Encoded: header))) as? [String: Any]
        let x5c = try #require(object?["x5c"] as? [String])
        leaf = try Certificate(der: Array(try #require(Data(base64Encoded: x5c[0]))))
        intermediate = try Certificate(der: Array(try #require(Data(base64Encoded: x5c[1]))))
    }

    @Test("Apple Root CA - G3 reads as `openssl x509 -text` shows it")
    func rootFields() throws {
        let name = "CN=Apple Root CA - G3, OU=Apple Certification Authority, O=Apple Inc., C=US"
        #expect(root.subjectName.description == name)
        #expect(root.issuerName.description == name)
        #expect(root.subjectName.commonName == "Apple Root CA - G3")
        #expect(root.notBefore == Date.epochMillis("2014-04-30T18:19:06Z"))
        #expect(root.notAfter == Date.epochMillis("2039-04-30T18:19:06Z"))
        #expect(root.isCA)
        #expect(root.pathLengthConstraint == nil)
        #expect(root.serialNumber == "2dc5fc88d2c54b95")
        let certifiedKey = try root.publicKey
        #expect(certifiedKey.curve == .p384)
    }

    @Test("the certificate keeps the exact DER it was parsed from")
    func keepsDER() throws {
        let der = try TestData.bytes(try #require(TestData.conformance).appendingPathComponent("apple/AppleRootCA-G3.cer"))
        #expect(root.der == der)
    }

    @Test("the real chain links by signature (ecdsa-with-SHA384) and names, and not across levels")
    func realChainLinks() {
        #expect(root.isSigned(by: root))
        #expect(intermediate.isSigned(by: root))
        #expect(intermediate.identifiesIssuer(root))
        #expect(leaf.isSigned(by: intermediate))
        #expect(leaf.identifiesIssuer(intermediate))
        #expect(!leaf.isSigned(by: root))
        #expect(!leaf.identifiesIssuer(root))
        #expect(!intermediate.isSigned(by: intermediate))
    }

    @Test("the intermediate is a CA with pathlen 0 and Apple's intermediate marker; the leaf is a P-256 non-CA with the leaf marker")
    func realExtensions() throws {
        #expect(intermediate.isCA)
        #expect(intermediate.pathLengthConstraint == 0)
        #expect(intermediate.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        #expect(!intermediate.hasExtension(oid: "1.2.840.113635.100.6.11.1"))
        #expect(!leaf.isCA)
        #expect(leaf.hasExtension(oid: "1.2.840.113635.100.6.11.1"))
        #expect(!leaf.hasExtension(oid: "1.2.840.113635.100.6.2.1"))
        let certifiedKey = try leaf.publicKey
        #expect(certifiedKey.curve == .p256)
        #expect(leaf.subjectName.commonName == "Prod ECC Mac App Store and iTunes Store Receipt Signing")
        #expect(leaf.notAfter == Date.epochMillis("2027-10-13T17:47:23Z"))
        #expect(!root.hasExtension(oid: "not an oid"))
    }

    @Test("PEM text (as written by other tools) parses to the same certificate, and either form loads through init(derOrPEM:)")
    func pem() throws {
        let body = Data(root.der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        let pem = Array("-----BEGIN CERTIFICATE-----\n\(body)\n-----END CERTIFICATE-----\n".utf8)
        #expect(try Certificate(pem: pem) == root)
        #expect(try Certificate(derOrPEM: pem) == root)
        #expect(try Certificate(derOrPEM: root.der) == root)
        #expect(try Certificate(pem: Array(root.pem.utf8)) == root)
        #expect(root.pem.hasPrefix("-----BEGIN CERTIFICATE-----\n"))
    }

    @Test("truncated DER and DER with trailing bytes are rejected")
    func rejectsDamagedDER() {
        #expect(throws: CryptoError.self) { try Certificate(der: Array(root.der.dropLast())) }
        #expect(throws: CryptoError.self) { try Certificate(der: root.der + [0]) }
    }
}

@Suite("Certificate parsing of invalid input")
struct InvalidCertificateTests {
    @Test("garbage, empty input and PEM without a certificate throw a CryptoError with OpenSSL's reason",
          arguments: [[], [0x30, 0x03, 0x02, 0x01, 0x00], Array("not a certificate".utf8)])
    func rejectsGarbage(_ bytes: [UInt8]) {
        #expect(throws: CryptoError.self) { try Certificate(der: bytes) }
        #expect(throws: CryptoError.self) { try Certificate(derOrPEM: bytes) }
        let error = #expect(throws: CryptoError.self) { try Certificate(pem: bytes) }
        #expect(error?.message.contains("PEM_read_bio_X509") == true)
    }
}
