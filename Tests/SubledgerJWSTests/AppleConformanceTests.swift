import Foundation
import SubledgerCrypto
import SubledgerJWS
import Testing

/// Real App Store data from ../shared/conformance (see its README).
@Suite("Real Apple-signed data", .enabled(if: TestData.conformance != nil, "\(TestData.conformanceMissing)"))
struct AppleConformanceTests {
    static let exceptionalFile = "notification-DID_RENEW-none-469bf30e.jws"

    let directory: URL
    let verifier: SignedDataVerifier

    init() throws {
        directory = try #require(TestData.conformance)
        let root = try Certificate(derOrPEM: AppleRootCertificates.rootCAG3)
        verifier = SignedDataVerifier(trustedRoots: [root])
    }

    static func signedDate(_ payload: [UInt8]) throws -> Int64? {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        return (object["signedDate"] as? NSNumber)?.int64Value
    }

    func files(_ subdirectory: String) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory.appendingPathComponent(subdirectory), includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "jws" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test("every JWS in apple/ and apple-bulk/ verifies against Apple Root CA - G3 at its payload's signedDate",
          arguments: ["apple", "apple-bulk"])
    func corpusVerifies(_ subdirectory: String) throws {
        let files = try files(subdirectory)
        #expect(files.count > 50)
        var withoutSignedDate: [String] = []
        for file in files {
            let jws = try CompactJWS(TestData.jws(file))
            guard let signedDate = try Self.signedDate(jws.payload) else {
                withoutSignedDate.append(file.lastPathComponent)
                continue
            }
            #expect(throws: Never.self, "\(file.lastPathComponent)") { try verifier.verify(jws, at: signedDate) }
        }
        #expect(withoutSignedDate == [Self.exceptionalFile])
    }

    @Test("the payload's signedDate is the one MANIFEST.tsv lists (column 7)")
    func manifestAgrees() throws {
        let manifest = try String(contentsOf: directory.appendingPathComponent("apple/MANIFEST.tsv"), encoding: .utf8)
        var checked = 0
        for row in manifest.split(separator: "\n").dropFirst() {
            let columns = row.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard columns[0].hasSuffix(".jws"), !columns[0].hasPrefix("unverified/"), !columns[6].isEmpty else { continue }
            let jws = try CompactJWS(TestData.jws(directory.appendingPathComponent("apple/\(columns[0])")))
            #expect(try Self.signedDate(jws.payload) == Instant.parse(columns[6]), "\(columns[0])")
            checked += 1
        }
        #expect(checked == 77)
    }

    @Test("the 2022 notification without signedDate verifies at its nested signedTransactionInfo's signedDate, and not today")
    func notificationWithoutSignedDate() throws {
        let jws = try CompactJWS(TestData.jws(directory.appendingPathComponent("apple/\(Self.exceptionalFile)")))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(jws.payload)) as? [String: Any])
        #expect(object["signedDate"] == nil)
        let data = try #require(object["data"] as? [String: Any])
        let transaction = try CompactJWS(Array(try #require(data["signedTransactionInfo"] as? String).utf8))
        let nestedDate = try #require(try Self.signedDate(transaction.payload))
        #expect(nestedDate == Instant.parse("2022-03-04T09:43:28.254Z"))
        #expect(throws: Never.self) { try verifier.verify(jws, at: nestedDate) }
        let text = try TestData.jws(directory.appendingPathComponent("apple/\(Self.exceptionalFile)"))
        #expect(verifier.rejection(text, at: Instant.today) == .certificateExpired)
    }

    @Test("the unverified sample (58-byte signature) is signature_invalid, while its intact original verifies")
    func unverifiedSample() throws {
        let original = try TestData.jws(directory.appendingPathComponent("apple/notification-SUBSCRIBED-RESUBSCRIBE-00ddfd5f.jws"))
        let altered = try TestData.jws(directory.appendingPathComponent("apple/unverified/notification-SUBSCRIBED-RESUBSCRIBE-00ddfd5f-2.jws"))
        let jws = try CompactJWS(altered)
        #expect(jws.signature.count == 58)
        let instant = try #require(try Self.signedDate(jws.payload))
        #expect(verifier.rejection(original, at: instant) == nil)
        let error = try #require(verifier.error(altered, at: instant))
        #expect(error.reason == .signatureInvalid)
        #expect(error.detail.contains("58 bytes"))
    }

    @Test("validity is checked at the given instant: a 2023 message verifies at its signedDate and is certificate_expired today")
    func expiredToday() throws {
        let text = try TestData.jws(directory.appendingPathComponent("apple/notification-CONSUMPTION_REQUEST-none-cbff6987.jws"))
        let signedDate = try #require(try Self.signedDate(CompactJWS(text).payload))
        #expect(signedDate == Instant.parse("2023-06-28T08:38:32.560Z"))
        #expect(verifier.rejection(text, at: signedDate) == nil)
        let error = try #require(verifier.error(text, at: Instant.today))
        #expect(error.reason == .certificateExpired)
        #expect(error.detail.contains("leaf certificate (Prod ECC Mac App Store and iTunes Store Receipt Signing"))
        #expect(error.detail.contains("to 2023-09-24T"))
    }

    @Test("Apple's messages are untrusted under a test root that copies Apple's names")
    func untrustedUnderImpostorRoot() throws {
        let impostor = try TestPKI(validity: Instant.y2025...Instant.y2027)
        let verifier = SignedDataVerifier(trustedRoots: [impostor.root])
        let text = try TestData.jws(directory.appendingPathComponent("apple/notification-CONSUMPTION_REQUEST-none-15101c57.jws"))
        let signedDate = try #require(try Self.signedDate(CompactJWS(text).payload))
        #expect(verifier.rejection(text, at: signedDate) == .chainUntrusted)
    }
}
