import Foundation
import SubledgerAppStore
import SubledgerCrypto
import SubledgerJWS
import SubledgerLog
import SubledgerTestSupport
import Testing
@testable import SubledgerLedger

/// Xcode's StoreKit testing signs with one self-signed certificate, which a developer saves from
/// Xcode and gives to `init` as a root.
@Suite("Ledger: messages signed by Xcode's StoreKit testing")
struct LocallySignedMessagesTests {
    let directory = TemporaryDirectory()
    static let start = AppStoreFixtures.defaultPurchaseDate

    /// A self-signed P-256 certificate like the one Xcode saves, a CA or not, and its key.
    static func storeKitCertificate(isCA: Bool) throws -> (certificate: Certificate, key: ECPrivateKey) {
        let key = try ECPrivateKey(generating: .p256)
        var builder = CertificateBuilder(
            profile: .root, subject: DistinguishedName(commonName: "StoreKit Testing in Xcode"), serialNumber: 7,
            notBefore: start - 86_400_000, notAfter: start + 400 * 86_400_000)
        if !isCA {
            builder.basicConstraints = "critical,CA:FALSE"
            builder.keyUsage = "critical,digitalSignature"
        }
        return (try builder.selfSigned(key: key), key)
    }

    func ledger(environments: [String], roots: [Certificate]) throws -> Ledger {
        let files = try roots.enumerated().map { index, root in
            let file = directory.file("root-\(index).cer")
            try Data(root.der).write(to: URL(fileURLWithPath: file))
            return file
        }
        let data = directory.file("data-\(environments.joined(separator: "-"))")
        _ = try Ledger.initialize(
            directory: data, bundleId: AppStoreFixtures.defaultBundleId, appAppleId: AppStoreFixtures.defaultAppAppleId,
            environments: environments, rootFiles: files, smallBusiness: false, catalogFile: nil)
        return try Ledger(directory: data)
    }

    func subscribed(_ fixtures: AppStoreFixtures, _ transactionId: String) -> IngestLine {
        let transaction = fixtures.transaction(transactionId: transactionId, purchaseDate: Self.start)
        let body = fixtures.notification(.subscribed, subtype: .initialBuy, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction)).webhookBody
        return IngestLine(bytes: body, line: 1, source: "-")
    }

    @Test("a ledger that accepts Xcode takes notifications and transactions signed by the StoreKit testing certificate given as its root, a CA or not", arguments: [true, false])
    func xcodeLedgerTakesThem(isCA: Bool) throws {
        let (certificate, key) = try Self.storeKitCertificate(isCA: isCA)
        let ledger = try ledger(environments: ["Xcode"], roots: [certificate])
        defer { ledger.close() }
        let fixtures = AppStoreFixtures(signer: JWSSigner(key: key, x5c: [certificate.der]), environment: .xcode)
        let outcome = try ledger.ingest(subscribed(fixtures, "2000000000000901"), recordedAt: 1)
        guard case .appended = outcome else {
            Issue.record("a notification signed by the configured StoreKit certificate was \(outcome)")
            return
        }
        let transaction = fixtures.transaction(transactionId: "2000000000000902", purchaseDate: Self.start)
        let bare = IngestLine(bytes: Array(fixtures.signedTransactionInfo(transaction).utf8), line: 2, source: "-")
        #expect(try ledger.ingest(bare, recordedAt: 1).isAppended)
    }

    @Test("one certificate signs only a message of a local environment the ledger accepts, and only when it is a configured root; the signature is still checked")
    func oneCertificateIsNoLooserThanThat() throws {
        let (certificate, key) = try Self.storeKitCertificate(isCA: true)
        let (stranger, strangerKey) = try Self.storeKitCertificate(isCA: true)
        // Production and Xcode in one ledger, trusting the StoreKit certificate.
        let ledger = try ledger(environments: ["Production", "Xcode"], roots: [certificate])
        defer { ledger.close() }
        let local = AppStoreFixtures(signer: JWSSigner(key: key, x5c: [certificate.der]), environment: .production)
        let production = try ledger.ingest(subscribed(local, "2000000000000911"), recordedAt: 1)
        #expect(production.rejection?.reason == "chain_invalid", "a Production message signed by one certificate: \(production)")
        #expect(production.rejection?.detail.contains("Xcode or LocalTesting") == true)

        let unknown = AppStoreFixtures(signer: JWSSigner(key: strangerKey, x5c: [stranger.der]), environment: .xcode)
        let untrusted = try ledger.ingest(subscribed(unknown, "2000000000000912"), recordedAt: 1)
        #expect(untrusted.rejection?.reason == "chain_untrusted", "\(untrusted)")
        #expect(untrusted.rejection?.detail.contains("Save Public Certificate") == true)

        // The configured certificate named in the header, another key's signature.
        let forged = AppStoreFixtures(signer: JWSSigner(key: strangerKey, x5c: [certificate.der]), environment: .xcode)
        #expect(try ledger.ingest(subscribed(forged, "2000000000000913"), recordedAt: 1).rejection?.reason == "signature_invalid")

        let sandboxOnly = try self.ledger(environments: ["Sandbox"], roots: [certificate])
        defer { sandboxOnly.close() }
        let xcode = AppStoreFixtures(signer: JWSSigner(key: key, x5c: [certificate.der]), environment: .xcode)
        #expect(try sandboxOnly.ingest(subscribed(xcode, "2000000000000914"), recordedAt: 1).rejection?.reason == "chain_invalid")
        #expect(try LogReader(directory: directory.file("data-Sandbox/log")).summary().records == 0)
    }

    @Test("init takes a self-signed certificate that is no CA as a root only for a ledger that accepts Xcode or LocalTesting")
    func initTakesTheCertificateForLocalEnvironments() throws {
        let (certificate, _) = try Self.storeKitCertificate(isCA: false)
        #expect(throws: LedgerError.self) { _ = try ledger(environments: ["Sandbox"], roots: [certificate]) }
        #expect(!FileManager.default.fileExists(atPath: directory.file("data-Sandbox/config.json")))
        for environment in ["Xcode", "LocalTesting"] {
            try ledger(environments: [environment], roots: [certificate]).close()
        }
    }
}

extension IngestOutcome {
    var isAppended: Bool { if case .appended = self { true } else { false } }

    var rejection: (reason: String, detail: String)? {
        if case .rejected(let reason, let detail) = self { (reason, detail) } else { nil }
    }
}
