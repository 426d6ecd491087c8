import Foundation
import SubledgerCrypto
import SubledgerJWS
import Testing

@Suite("The shipped Apple root")
struct AppleRootCertificatesTests {
    @Test("the shipped Apple Root CA - G3 has the fingerprint Apple publishes and is a self-signed P-384 root")
    func fingerprint() throws {
        let hex = SHA256.hash(AppleRootCertificates.rootCAG3).map { String(format: "%02X", $0) }.joined(separator: ":")
        #expect(hex == "63:34:3A:BF:B8:9A:6A:03:EB:B5:7E:9B:3F:5F:A7:BE:7C:4F:5C:75:6F:30:17:B3:A8:C4:88:C3:65:3E:91:79")
        _ = try Certificate(derOrPEM: AppleRootCertificates.rootCAG3)
    }

    @Test("the shipped root is the one every real Apple-signed message chains to", .enabled(if: TestData.conformance != nil, "\(TestData.conformanceMissing)"))
    func sameAsConformanceCopy() throws {
        let directory = try #require(TestData.conformance)
        #expect(try TestData.bytes(directory.appendingPathComponent("apple/AppleRootCA-G3.cer")) == AppleRootCertificates.rootCAG3)
    }
}
