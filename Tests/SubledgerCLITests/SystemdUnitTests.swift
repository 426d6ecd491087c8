import Foundation
import Testing

/// `Tools/subledger.service` and the backup units: accepted by systemd without a warning, and
/// hardened as a service facing the network should be.
@Suite("systemd units")
struct SystemdUnitTests {
    static let tools = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools")
    static let units = ["subledger.service", "subledger-backup.service", "subledger-backup.timer"]
    static let analyze = "/usr/bin/systemd-analyze"

    func unit(_ name: String) throws -> String {
        try String(contentsOf: Self.tools.appendingPathComponent(name), encoding: .utf8)
    }

    @Test("systemd-analyze verify accepts every unit without a warning", .enabled(if: FileManager.default.isExecutableFile(atPath: analyze)))
    func verifies() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("subledger-units-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // The binary is installed by the administrator; verify checks that ExecStart= is executable.
        for name in Self.units {
            try unit(name).replacingOccurrences(of: "/usr/local/bin/subledger", with: "/bin/true")
                .write(to: directory.appendingPathComponent(name), atomically: true, encoding: .utf8)
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.analyze)
        process.arguments = ["verify"] + Self.units.map { directory.appendingPathComponent($0).path }
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = errors
        try process.run()
        let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        // Unknown keys and bad values are only warnings, with exit 0.
        #expect(said.isEmpty, "\(said)")
    }

    @Test("the server runs as its own user, writes only its data directory, cannot gain privileges and restarts on failure")
    func hardened() throws {
        let settings = Set(try unit("subledger.service").split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) })
        for setting in ["User=subledger", "ProtectSystem=strict", "ReadWritePaths=/var/lib/subledger", "NoNewPrivileges=yes",
                        "PrivateTmp=yes", "ProtectHome=yes", "CapabilityBoundingSet=", "Restart=on-failure"] {
            #expect(settings.contains(setting), "missing \(setting)")
        }
        #expect(settings.contains { $0.hasPrefix("ExecStart=") && $0.contains(" serve ") && $0.contains("--token-file") })
    }
}
