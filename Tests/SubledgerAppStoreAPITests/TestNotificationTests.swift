import Foundation
import SubledgerCLI
import SubledgerJWS
import SubledgerTestSupport
import Testing

/// `appstore test-notification` while `serve` holds the ledger: Apple's TEST notification reaches
/// the webhook, and the command says so.
@Suite("appstore test-notification", .enabled(if: StandIn.isInstalled, StandIn.missing))
struct TestNotificationTests {
    /// A loopback port free a moment ago, below the kernel's ephemeral range: the port goes to the
    /// stand-in before the server binds it, and a port the kernel picked could meanwhile be handed to
    /// any outgoing connection of the tests running beside this one.
    static func freePort() -> Int {
        let range = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))?
            .split(whereSeparator: \.isWhitespace).first.flatMap { Int($0) } ?? 32768
        for _ in 0..<1000 {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = range > 11000 ? UInt16(Int.random(in: 10000..<range)).bigEndian : 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) } }
            guard bound == 0 else { continue }
            _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) } }
            return Int(UInt16(bigEndian: address.sin_port))
        }
        Issue.record("no free loopback port below the ephemeral range")
        return 0
    }

    @Test("the TEST notification arrives through the running server's webhook: arrived, with Apple's SUCCESS attempt")
    func arrivesThroughTheWebhook() throws {
        let workload = try Workload(customers: 5, months: 1, seed: 81)
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let pki = try TestPKI(validity: (now - 86_400_000 * 365)...(now + 86_400_000 * 365))
        let fixtures = AppStoreFixtures(pki: pki, environment: .production)
        var test = fixtures.payload(.test, signedDate: now)
        test.data = fixtures.data(transaction: nil, renewal: nil, status: nil)
        let testFile = workload.directory.file("test.jsonl")
        try ("{\"signedPayload\":\"" + fixtures.sign(test).signedPayload + "\"}\n").write(toFile: testFile, atomically: true, encoding: .utf8)
        let testRoot = workload.directory.file("test-root.cer")
        try Data(pki.rootDER).write(to: URL(fileURLWithPath: testRoot))

        let port = Self.freePort()
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key,
                                  extra: ["--test-notification", testFile, "--webhook", "http://127.0.0.1:\(port)/v1/notifications/appstore"])
        try workload.webhookLedger(key: key, standIn: standIn)
        #expect(workload.cli(["init", "--bundle-id", "com.example.subledger", "--root", workload.simulation + "/root.cer", "--root", testRoot]).exitCode == .success)
        let before = try workload.json(["stats"])["messages"] as! Int

        let server = Process()
        server.executableURL = ServeRecoveryTests.binary
        server.arguments = ["--data", workload.data, "serve", "--listen", "127.0.0.1:\(port)", "--recover-every", "0"]
        let errors = Pipe()
        server.standardError = errors
        try server.run()
        _ = errors.fileHandleForReading.availableLine()

        let (code, output) = workload.cli(["appstore", "test-notification", "--wait", "10", "--json"])
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        #expect(code == .success)
        let answer = try JSONSerialization.jsonObject(with: Data(output.utf8)) as! [String: Any]
        #expect(answer["arrived"] as? Bool == true)
        #expect((answer["sendAttempts"] as? [[String: Any]])?.first?["sendAttemptResult"] as? String == "SUCCESS")
        #expect(try workload.json(["stats"])["messages"] as? Int == before + 1)
    }

    @Test("a TEST notification that never reaches the webhook: exit 1, arrived false, and stderr says what to check, with --json too")
    func notArrivedIsReported() throws {
        let workload = try Workload(customers: 5, months: 1, seed: 82)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key)
        try workload.webhookLedger(key: key, standIn: standIn)
        let process = Process()
        process.executableURL = ServeRecoveryTests.binary
        process.arguments = ["--data", workload.data, "appstore", "test-notification", "--wait", "1", "--json"]
        let (output, errors) = (Pipe(), Pipe())
        (process.standardOutput, process.standardError) = (output, errors)
        try process.run()
        let answer = try JSONSerialization.jsonObject(with: output.fileHandleForReading.readDataToEndOfFile()) as! [String: Any]
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 1)
        #expect(answer["arrived"] as? Bool == false)
        #expect((answer["testNotificationToken"] as? String)?.isEmpty == false)
        #expect(said.contains("did not reach the webhook in 1 s") && said.contains("`subledger --data \(workload.data) serve`"), "\(said)")
    }
}
