import Foundation
import SubledgerCrypto
import SubledgerTestSupport
import Testing

/// `Tools/appstore-api-standin` on a free loopback port, serving one workload; stopped (by its
/// own pid) when released.
///
/// `@unchecked Sendable` for its `Process`, which Foundation does not mark Sendable: it is set up
/// and started in `init`, and afterwards only asked whether it runs and killed by its pid.
final class StandIn: @unchecked Sendable {
    static let python = Conformance.repositoryRoot.appendingPathComponent(".build/python/bin/python")
    static let script = Conformance.repositoryRoot.appendingPathComponent("Tools/appstore-api-standin")
    static let isInstalled = FileManager.default.isExecutableFile(atPath: python.path)
    static let missing: Comment = "the stand-in needs the project's Python venv: run Tools/setup-python (creates .build/python)"

    let process = Process()
    let port: Int
    let caFile: String
    var baseURL: String { "https://127.0.0.1:\(port)" }

    /// - Parameter extra: more stand-in options (faults, `--tamper`, `--forged`, …).
    init(workload: String, state: String, key: APIKey, extra: [String] = []) throws {
        process.executableURL = Self.python
        process.arguments = [Self.script.path, "--workload", workload, "--state", state, "--key-pub", key.publicKeyFile,
                             "--key-id", key.keyId, "--issuer-id", key.issuerId, "--bundle-id", "com.example.subledger"] + extra
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let line = String(decoding: output.fileHandleForReading.availableLine(), as: UTF8.self)
        guard line.hasPrefix("listening on "), let port = Int(line.dropFirst("listening on ".count)) else {
            process.terminate()
            throw StandInError(message: "the stand-in did not start: \(line)")
        }
        self.port = port
        caFile = state + "/ca.pem"
    }

    /// Kills it now: from here on its port refuses connections.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit {
        stop()
    }
}

struct StandInError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A fresh App Store Server API key in the files a user and the stand-in have: the `.p8` and the
/// public key in PEM.
struct APIKey {
    let key: ECPrivateKey
    let keyFile: String
    let publicKeyFile: String
    let keyId: String
    let issuerId: String

    init(directory: TemporaryDirectory, name: String = "key", keyId: String = "STANDIN01", issuerId: String = "8a2e3f10-0000-4000-8000-000000000001") throws {
        key = try ECPrivateKey(generating: .p256)
        keyFile = directory.file("\(name).p8")
        publicKeyFile = directory.file("\(name).pub.pem")
        self.keyId = keyId
        self.issuerId = issuerId
        try Data(try key.pkcs8PEM()).write(to: URL(fileURLWithPath: keyFile))
        let base64 = String(decoding: Base64.encode(key.publicKey.subjectPublicKeyInfo), as: UTF8.self)
        let lines = stride(from: 0, to: base64.count, by: 64).map { String(base64.dropFirst($0).prefix(64)) }
        try ("-----BEGIN PUBLIC KEY-----\n" + lines.joined(separator: "\n") + "\n-----END PUBLIC KEY-----\n")
            .write(toFile: publicKeyFile, atomically: true, encoding: .utf8)
    }
}
