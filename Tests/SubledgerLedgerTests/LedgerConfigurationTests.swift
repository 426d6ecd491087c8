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
}
