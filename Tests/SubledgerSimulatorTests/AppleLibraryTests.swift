import Foundation
import SubledgerAppStore
import SubledgerJWS
import SubledgerSimulator
import SubledgerTestSupport
import Testing

/// Apple's own verifier (app-store-server-library, installed by Tools/setup-python) accepts what
/// the simulator signs: outer notifications and their nested transactions and renewal infos.
@Suite("Simulated workload verified by Apple's Python library")
struct AppleLibraryTests {
    static let python = Conformance.repositoryRoot.appendingPathComponent(".build/python/bin/python")
    static let script = Conformance.repositoryRoot.appendingPathComponent("Tools/python/verify_with_apple.py")
    static let isInstalled = FileManager.default.isExecutableFile(atPath: python.path)

    @Test("every generated JWS, outer and nested, verifies with Apple's library",
          .enabled(if: isInstalled, "Apple's Python library is not installed: run Tools/setup-python (creates .build/python)"))
    func appleAccepts() throws {
        let directory = TemporaryDirectory()
        _ = try Simulator(configuration: .init(customers: 40, months: 3, seed: 17)).run(to: directory.path)
        var jws: [String] = []
        for line in try String(contentsOfFile: directory.file("notifications.jsonl"), encoding: .utf8).split(separator: "\n") {
            let outer = try #require(try ResponseBodyV2.decode(Array(line.utf8)).signedPayload)
            jws.append(outer)
            let payload = try NotificationPayload.decode(try CompactJWS(Array(outer.utf8)).payload)
            if let nested = payload.data?.signedTransactionInfo { jws.append(nested) }
            if let nested = payload.data?.signedRenewalInfo { jws.append(nested) }
        }
        #expect(jws.count > 100)
        let input = directory.file("jws.txt")
        try jws.joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = Self.python
        process.arguments = [Self.script.path, "--root", directory.file("root.cer"), "--environment", "Production", input]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let verdicts = text.split(separator: "\n")
        #expect(verdicts.count == jws.count)
        #expect(verdicts.allSatisfy { $0 == "ok" }, "\(Set(verdicts))")
    }
}
