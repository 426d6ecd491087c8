import Foundation
import SubledgerTestSupport
import Testing

/// The stand-in is only worth its tests if Apple's own client understands it: the
/// `AppStoreServerAPIClient` of Apple's Python library calls every endpoint and parses each answer.
@Suite("The stand-in as Apple's own client sees it", .enabled(if: StandIn.isInstalled, StandIn.missing))
struct StandInFidelityTests {
    @Test("Apple's AppStoreServerAPIClient pages through every endpoint of the stand-in and parses every answer and error")
    func appleClientParsesEveryAnswer() throws {
        let workload = try Workload(customers: 40, months: 3, seed: 51, withhold: 0.1, ledgerStart: "2026-02-01")
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        let id = try #require(try String(contentsOfFile: workload.simulation + "/backfill-ids.txt", encoding: .utf8).split(separator: "\n").first)

        let process = Process()
        process.executableURL = StandIn.python
        process.arguments = [Conformance.repositoryRoot.appendingPathComponent("Tools/python/standin_fidelity.py").path,
                             standIn.baseURL, standIn.caFile, key.keyFile, key.keyId, key.issuerId, "com.example.subledger", String(id)]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]])

        let history = try workload.historyCount
        #expect(report["notificationHistory"]?["notifications"] as? Int == history)
        #expect(report["notificationHistory"]?["distinct"] as? Int == history)
        #expect(report["notificationHistory"]?["pages"] as? Int == (history + 19) / 20)
        #expect((report["transactionHistory"]?["transactions"] as? Int ?? 0) > 0)
        #expect(report["transactionHistory"]?["bundleId"] as? String == "com.example.subledger")
        #expect((report["subscriptionStatuses"]?["lastTransactions"] as? Int ?? 0) > 0)
        #expect(report["subscriptionStatuses"]?["signed"] as? Bool == true)
        #expect(report["testNotification"]?["token"] as? Bool == true)
        #expect(report["unknownTransaction"]?["status"] as? Int == 404)
        #expect(report["unknownTransaction"]?["errorCode"] as? Int == 4040010)
    }

    @Test("a token signed by another key, or for another bundle, gets 401 from the stand-in")
    func wrongTokensAreRefused() throws {
        let workload = try Workload(customers: 5, months: 1, seed: 52, withhold: 0.1)
        let key = try APIKey(directory: workload.directory)
        let other = try APIKey(directory: workload.directory, name: "other", keyId: key.keyId, issuerId: key.issuerId)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        for (signing, bundle) in [(other, "com.example.subledger"), (key, "com.example.other")] {
            let process = Process()
            process.executableURL = StandIn.python
            process.arguments = [Conformance.repositoryRoot.appendingPathComponent("Tools/python/standin_fidelity.py").path,
                                 standIn.baseURL, standIn.caFile, signing.keyFile, signing.keyId, signing.issuerId, bundle, "1"]
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = Pipe()
            try process.run()
            let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus != 0)
            #expect(text.contains("APIException"))
            #expect(text.contains("401"))
        }
    }
}
