#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SubledgerAppStore
import SubledgerJWS
import SubledgerLedger
import SubledgerLog
import SubledgerTestSupport
import Synchronization

/// Verified, durable ingestion of signed notifications (each with nested transaction and renewal
/// info: three ES256 verifications), side by side with Apple's Python library verifying the same
/// JWS in the same run, one process per core.
enum IngestBenchmark {
    struct Result {
        var notifications: Int
        var subledger: Samples
        /// The first notifications of the same corpus that Apple's library verifies.
        var pythonNotifications: Int
        /// Nil when Apple's library is not installed; `pythonMissing` says why.
        var python: Samples?
        var pythonMissing: String?
        var evidenceBytesPerNotification: Double
        var eventBytesPerNotification: Double
    }

    /// `pythonCount` bounds the Python side, which is about 40 times slower.
    static func run(count: Int, pythonCount: Int, runs: Int) throws -> Result {
        let start: Int64 = 1_767_225_600_000
        let pki = try TestPKI(validity: (start - 86_400_000)...(start + 400 * 86_400_000))
        let fixtures = AppStoreFixtures(pki: pki, environment: .production)
        // Signing is the cost of making the workload: on all cores.
        let lines = Mutex<[[UInt8]]>(Array(repeating: [], count: count))
        DispatchQueue.concurrentPerform(iterations: count) { i in
            let purchase = start + Int64(i) * 60_000
            let transaction = fixtures.transaction(transactionId: String(3_000_000_000_000_000 + i), purchaseDate: purchase)
            let signed = fixtures.notification(.didRenew, transaction: transaction, renewal: fixtures.renewalInfo(for: transaction))
            lines.withLock { $0[i] = signed.webhookBody }
        }
        let bodies = lines.withLock { $0 }
        let root = temporaryDirectory("ingest-root") + "/root.cer"
        defer { removeTree(String(root.dropLast("/root.cer".count))) }
        writeFile(root, pki.rootDER)

        var evidenceBytes = 0
        var eventBytes = 0
        let subledger: () throws -> Double = {
            let directory = temporaryDirectory("ingest")
            defer { removeTree(directory) }
            _ = try Ledger.initialize(directory: directory, bundleId: fixtures.bundleId, appAppleId: fixtures.appAppleId, environments: ["Production"],
                                      rootFiles: [root], smallBusiness: false, catalogFile: nil)
            let ledger = try Ledger(directory: directory)
            let began = now()
            for first in stride(from: 0, to: count, by: 4096) {
                let batch = (first..<min(count, first + 4096)).map { IngestLine(bytes: bodies[$0], line: $0 + 1, source: "bench") }
                let outcomes = try ledger.ingest(batch, recordedAt: 0)
                precondition(outcomes.allSatisfy { if case .appended = $0 { true } else { false } }, "bench workload was not accepted: \(outcomes.first!)")
            }
            let rate = Double(count) / (now() - began)
            ledger.close()
            evidenceBytes = Int(try LogReader(directory: directory + "/evidence").summary().bytes)
            eventBytes = Int(try LogReader(directory: directory + "/log").summary().bytes)
            return rate
        }
        let directory = temporaryDirectory("ingest-python")
        defer { removeTree(directory) }
        let pythonCount = min(count, pythonCount)
        let verifier = try PythonVerifier(bodies: Array(bodies.prefix(pythonCount)), root: root, directory: directory)
        let samples = try interleave(runs: runs, [subledger, verifier.map { verifier in { Double(pythonCount) / (try verifier.run()) } }])
        return Result(
            notifications: count, subledger: samples[0]!, pythonNotifications: pythonCount, python: samples[1],
            pythonMissing: verifier == nil ? "Apple's Python library is not installed (Tools/setup-python installs it in \(PythonVerifier.python))" : nil,
            evidenceBytesPerNotification: Double(evidenceBytes) / Double(count), eventBytesPerNotification: Double(eventBytes) / Double(count))
    }
}

/// Apple's app-store-server-library (Tools/python/verify_with_apple.py) verifying the same three
/// JWS per notification, the corpus split into one shard per core, one process per shard.
struct PythonVerifier {
    static let python = ".build/python/bin/python"
    let shards: [String]
    let root: String
    let expected: Int

    /// Nil when Tools/setup-python has not installed the library.
    init?(bodies: [[UInt8]], root: String, directory: String) throws {
        guard access(Self.python, X_OK) == 0 else { return nil }
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        var texts = [[UInt8]](repeating: [], count: cores)
        for (i, body) in bodies.enumerated() {
            let notification = try ResponseBodyV2.decode(body).signedPayload!
            let payload = try NotificationPayload.decode(try CompactJWS(Array(notification.utf8)).payload)
            for jws in [notification, payload.data!.signedTransactionInfo!, payload.data!.signedRenewalInfo!] {
                texts[i % cores] += Array(jws.utf8) + [0x0A]
            }
        }
        shards = texts.enumerated().map { i, text in
            let path = directory + "/shard\(i).txt"
            writeFile(path, text)
            return path
        }
        self.root = root
        expected = bodies.count * 3
    }

    /// Seconds for all shards, processes started together; checks every JWS verified.
    func run() throws -> Double {
        let began = now()
        let children = try shards.map { shard in
            try Subprocess([Self.python, "Tools/python/verify_with_apple.py", "--root", root, "--environment", "Production", shard], output: shard + ".out")
        }
        let succeeded = children.map { $0.succeeded() }.allSatisfy { $0 }
        let seconds = now() - began
        let verified = shards.reduce(0) { total, shard in
            total + (readTextFile(shard + ".out") ?? "").split(separator: "\n").filter { $0 == "ok" }.count
        }
        guard succeeded, verified == expected else {
            throw SubprocessFailure(description: "Apple's Python library verified \(verified) of \(expected) JWS\(succeeded ? "" : " and failed")")
        }
        return seconds
    }
}
