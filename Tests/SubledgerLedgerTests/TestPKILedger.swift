import Foundation
import SubledgerAppStore
import SubledgerEvents
import SubledgerJWS
import SubledgerTestSupport
@testable import SubledgerLedger

/// A ledger for the fixtures' app, trusting a fresh test PKI, taking `environments`.
struct TestPKILedger {
    let directory = TemporaryDirectory()
    let pki: TestPKI
    let ledger: Ledger
    static let start = AppStoreFixtures.defaultPurchaseDate

    init(environments: [String]) throws {
        pki = try TestPKI(validity: (Self.start - 86_400_000)...(Self.start + 400 * 86_400_000))
        let root = directory.file("root.cer")
        try Data(pki.rootDER).write(to: URL(fileURLWithPath: root))
        _ = try Ledger.initialize(
            directory: directory.file("data"), bundleId: AppStoreFixtures.defaultBundleId, appAppleId: AppStoreFixtures.defaultAppAppleId,
            environments: environments, rootFiles: [root], smallBusiness: false, catalogFile: nil)
        ledger = try Ledger(directory: directory.file("data"))
    }

    func fixtures(_ environment: AppStoreEnvironment) -> AppStoreFixtures { AppStoreFixtures(pki: pki, environment: environment) }
}
