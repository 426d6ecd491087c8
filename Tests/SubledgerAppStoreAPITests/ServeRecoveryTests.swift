import Foundation
import SubledgerTestSupport
import Testing

/// `serve --recover-every`: the server heals a gap on its own, through the binary a user runs.
@Suite("serve --recover-every", .enabled(if: StandIn.isInstalled, StandIn.missing))
struct ServeRecoveryTests {
    static let binary = Conformance.subledgerBinary

    @Test("the server recovers the notifications its webhook missed without anyone running a command, shows it on /metrics, and logs the waits Apple asks for")
    func serverHealsTheGap() throws {
        // Within the last 180 days: periodic recovery uses the default window.
        let workload = try Workload(customers: 40, months: 2, seed: 61, start: Workload.start(daysAgo: 75), withhold: 0.2)
        let key = try APIKey(directory: workload.directory)
        let standIn = try StandIn(workload: workload.simulation, state: workload.directory.file("standin"), key: key,
                                  extra: ["--throttle-first", "1", "--retry-after", "1"])
        try workload.webhookLedger(key: key, standIn: standIn)
        let missing = try workload.historyCount - workload.eventCount
        #expect(missing > 0)

        let server = Process()
        server.executableURL = Self.binary
        server.arguments = ["--data", workload.data, "serve", "--listen", "127.0.0.1:0", "--recover-every", "1h"]
        let errors = Pipe()
        server.standardError = errors
        try server.run()
        defer {
            if server.isRunning { kill(server.processIdentifier, SIGKILL) }
            server.waitUntilExit()
        }
        let line = String(decoding: errors.fileHandleForReading.availableLine(), as: UTF8.self)
        let port = try #require(line.split(separator: " ").first { $0.hasPrefix("127.0.0.1:") }.flatMap { Int($0.split(separator: ":")[1]) })

        var recovered = 0.0
        // 180 days of history over TLS from the debug build, beside the rest of the suite.
        let deadline = Date().addingTimeInterval(180)
        while recovered < Double(missing) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.3)
            recovered = Self.metric("subledger_appstore_notifications_recovered_total", port: port) ?? 0
        }
        #expect(recovered == Double(missing))
        #expect(Self.metric("subledger_appstore_last_recovery_timestamp_seconds", port: port) ?? 0 > Date().timeIntervalSince1970 - 120)
        // The first periodic run starts as far back as Apple keeps, so it sets the watermark the next resumes from.
        #expect(FileManager.default.fileExists(atPath: workload.data + "/appstore/recover-Production.json"))
        // Foundation's Process leaves SIGTERM blocked in the child, so the server is killed;
        // what it acknowledged is durable either way.
        kill(server.processIdentifier, SIGKILL)
        server.waitUntilExit()
        #expect(try workload.differencesFromExpected() == [])
        let logged = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(logged.contains("serve: recovering Production: throttled by Apple (HTTP 429), waiting "), "\(logged.suffix(2000))")
    }

    /// One sample of the server's `/metrics`, fetched with curl.
    static func metric(_ name: String, port: Int) -> Double? {
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-s", "http://127.0.0.1:\(port)/metrics"]
        let output = Pipe()
        curl.standardOutput = output
        guard (try? curl.run()) != nil else { return nil }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        curl.waitUntilExit()
        return text.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
    }
}
