import Foundation
import SubledgerAppStoreAPI
import SubledgerCLI
import SubledgerTestSupport
import Testing

/// `init --api-…`: the credentials and where requests go, set on the command line.
@Suite("App Store Server API setup")
struct APISetupTests {
    @Test("a base URL or CA given wrong is a usage error (2); either may change alone once credentials are installed, keeping the key")
    func baseURLAndCAChangeAlone() throws {
        let workload = try Workload(customers: 2, months: 1, seed: 35)
        let key = try APIKey(directory: workload.directory)
        let setup = ["init", "--bundle-id", "com.example.subledger", "--root", workload.simulation + "/root.cer"]
        #expect(workload.cli(setup + ["--api-base-url", "https://127.0.0.1:1"]).exitCode == .usage, "no credentials to point anywhere yet")
        let credentials = ["--api-key", key.keyFile, "--api-key-id", key.keyId, "--api-issuer-id", key.issuerId]
        #expect(workload.cli(setup + credentials + ["--api-base-url", "http://127.0.0.1:1"]).exitCode == .usage)
        #expect(workload.cli(setup + credentials + ["--api-ca-file", workload.simulation + "/expected.json"]).exitCode == .usage)
        #expect(workload.cli(setup + credentials + ["--api-base-url", "https://127.0.0.1:1"]).exitCode == .success)
        let keyBytes = try Data(contentsOf: URL(fileURLWithPath: workload.data + "/appstore/AuthKey.p8"))

        #expect(workload.cli(setup + ["--api-base-url", "https://127.0.0.1:2"]).exitCode == .success)
        let moved = try #require(try APIConfiguration.load(directory: workload.data))
        #expect(moved.baseURL == "https://127.0.0.1:2" && moved.keyId == key.keyId && moved.issuerId == key.issuerId)
        #expect(try Data(contentsOf: URL(fileURLWithPath: workload.data + "/appstore/AuthKey.p8")) == keyBytes)
        #expect(workload.cli(setup + ["--api-base-url", "ftp://127.0.0.1:2"]).exitCode == .usage)
        #expect(try APIConfiguration.load(directory: workload.data)?.baseURL == "https://127.0.0.1:2")

        // From a stand-in back to Apple: its hosts, and the stand-in's CA dropped with its URL.
        #expect(workload.cli(setup + ["--api-ca-file", workload.simulation + "/root.cer"]).exitCode == .success)
        #expect(try APIConfiguration.load(directory: workload.data)?.caFile != nil)
        #expect(workload.cli(setup + ["--api-base-url", "apple"]).exitCode == .success)
        let apple = try #require(try APIConfiguration.load(directory: workload.data))
        #expect(apple.baseURL == nil && apple.caFile == nil && apple.keyId == key.keyId)
        #expect(!FileManager.default.fileExists(atPath: workload.data + "/appstore/ca.pem"))
        #expect(apple.baseURL(for: "Production") == AppStoreServerAPIClient.baseURL(for: "Production"))
        #expect(apple.baseURL(for: "Sandbox") == AppStoreServerAPIClient.baseURL(for: "Sandbox"))
        #expect(apple.baseURL(for: "Production") != apple.baseURL(for: "Sandbox"))
    }
}
