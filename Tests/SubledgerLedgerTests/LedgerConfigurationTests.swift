import Foundation
import SubledgerJWS
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

@Suite("Ledger: configuration")
struct LedgerConfigurationTests {
    let directory = TemporaryDirectory()

    func initialize(roots: [String]) throws -> LedgerConfiguration {
        try Ledger.initialize(
            directory: directory.file("data"), bundleId: "com.example.app", appAppleId: nil, environments: ["Production"],
            rootFiles: roots, smallBusiness: false, catalogFile: nil)
    }

    func trusted(_ configuration: LedgerConfiguration) throws -> [[UInt8]] {
        try configuration.roots.map { try #require(FileIO.read(DataDirectoryLayout(directory.file("data")).path(of: $0))) }
    }

    @Test("init without --root trusts Apple Root CA - G3; --root trusts exactly the roots given; init again without --root keeps them")
    func defaultRoot() throws {
        #expect(try trusted(try initialize(roots: [])) == [AppleRootCertificates.rootCAG3])

        let own = try TestPKI(validity: 1_700_000_000_000...1_900_000_000_000).rootDER
        try Data(own).write(to: URL(fileURLWithPath: directory.file("own.cer")))
        #expect(try trusted(try initialize(roots: [directory.file("own.cer")])) == [own])
        #expect(try trusted(try initialize(roots: [])) == [own])
    }

    @Test("a root given twice, as one file twice or as its DER and its PEM, is trusted once")
    func rootGivenTwiceIsKeptOnce() throws {
        let own = try TestPKI(validity: 1_700_000_000_000...1_900_000_000_000).rootDER
        try Data(own).write(to: URL(fileURLWithPath: directory.file("own.cer")))
        let pem = "-----BEGIN CERTIFICATE-----\n" + Data(own).base64EncodedString(options: .lineLength64Characters) + "\n-----END CERTIFICATE-----\n"
        try pem.write(toFile: directory.file("own.pem"), atomically: true, encoding: .utf8)
        #expect(try trusted(try initialize(roots: [directory.file("own.cer"), directory.file("own.cer")])) == [own])
        let again = try initialize(roots: [directory.file("own.cer"), directory.file("own.pem"), directory.file("own.cer")])
        #expect(again.roots.count == 1)
    }

    @Test("init --root refuses what cannot anchor a chain, saying why, and leaves no directory: a leaf or intermediate, a certificate that is no CA or allows no intermediate, and a PEM bundle of several roots (of which only the first would be kept)")
    func rootThatIsNoRootIsRefused() throws {
        var options = TestPKI.Options(validity: 1_700_000_000_000...1_900_000_000_000)
        options.rootBasicConstraints = "critical,CA:FALSE"
        let notCA = try TestPKI(options)
        options.rootBasicConstraints = "critical,CA:TRUE,pathlen:0"
        let noIntermediate = try TestPKI(options)
        let pki = try TestPKI(validity: 1_700_000_000_000...1_900_000_000_000)
        let other = try TestPKI(validity: 1_700_000_000_000...1_900_000_000_000)
        let cases: [(name: String, bytes: [UInt8], says: String)] = [
            ("leaf.cer", pki.leaf.der, "not a CA"),
            ("intermediate.cer", pki.intermediate.der, "not self-issued"),
            ("not-ca.cer", notCA.root.der, "not a CA"),
            ("pathlen-0.cer", noIntermediate.root.der, "pathLen 0"),
            ("bundle.pem", Array((pki.root.pem + other.root.pem).utf8), "holds 2 certificates"),
        ]
        for (name, bytes, says) in cases {
            try Data(bytes).write(to: URL(fileURLWithPath: directory.file(name)))
            do {
                _ = try initialize(roots: [directory.file(name)])
                Issue.record("\(name) was taken as a root")
            } catch {
                #expect("\(error)".contains(says), "\(name): \(error)")
            }
            #expect(!FileManager.default.fileExists(atPath: directory.file("data/config.json")), "\(name)")
        }
        try Data(Array(pki.root.pem.utf8)).write(to: URL(fileURLWithPath: directory.file("root.pem")))
        #expect(try trusted(try initialize(roots: [directory.file("root.pem")])) == [Array(pki.root.pem.utf8)])
    }
}

@Suite("Ledger: configuration against the stored messages")
struct LedgerConfigurationStoredAppTests {
    @Test("a ledger with events refuses another app's bundle id, naming the one its messages carry, and takes it back after config.json was edited to another")
    func bundleIdIsTheStoredMessages() throws {
        let test = try TestPKILedger(environments: ["Production"])
        let fixtures = test.fixtures(.production)
        let transaction = fixtures.transaction(transactionId: "2000000000000801", purchaseDate: TestPKILedger.start)
        let body = fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction)).webhookBody
        _ = try test.ledger.ingest([IngestLine(bytes: body, line: 1, source: "test")], recordedAt: TestPKILedger.start)
        test.ledger.close()
        let data = test.directory.file("data")
        func initialize(_ bundleId: String) -> String? {
            do {
                _ = try Ledger.initialize(directory: data, bundleId: bundleId, appAppleId: nil, environments: ["Production"], rootFiles: [], smallBusiness: false, catalogFile: nil)
                return nil
            } catch { return "\(error)" }
        }
        #expect(initialize("com.other.app")?.contains("holds the events of bundle \(AppStoreFixtures.defaultBundleId)") == true)
        let config = data + "/config.json"
        let edited = try String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(of: AppStoreFixtures.defaultBundleId, with: "com.evil.other")
        try edited.write(toFile: config, atomically: true, encoding: .utf8)
        #expect(initialize("com.other.app")?.contains("holds the events of bundle \(AppStoreFixtures.defaultBundleId)") == true, "the messages say, not the edited file")
        #expect(initialize(AppStoreFixtures.defaultBundleId) == nil, "the command the refusal suggests mends it")
        #expect(try LedgerConfiguration.load(from: data).bundleId == AppStoreFixtures.defaultBundleId)
    }
}
