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
/// JWS in the same run.
enum IngestBenchmark {
    struct Result {
        var notificationsPerSecond: Double
        var pythonPerSecond: Double?
        var evidenceBytesPerNotification: Double
    }

    static func run(count: Int) throws -> Result {
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

        let directory = temporaryDirectory("ingest")
        defer { removeTree(directory) }
        let root = directory + "-root.cer"
        defer { unlink(root) }
        writeBytes(root, pki.rootDER)
        _ = try Ledger.initialize(directory: directory, bundleId: fixtures.bundleId, appAppleId: fixtures.appAppleId, environments: ["Production"], rootFiles: [root], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: directory)
        let began = now()
        for first in stride(from: 0, to: count, by: 4096) {
            let batch = (first..<min(count, first + 4096)).map { IngestLine(bytes: bodies[$0], line: $0 + 1, source: "bench") }
            let outcomes = try ledger.ingest(batch, recordedAt: 0)
            precondition(outcomes.allSatisfy { if case .appended = $0 { true } else { false } }, "bench workload was not accepted: \(outcomes.first!)")
        }
        let rate = Double(count) / (now() - began)
        ledger.close()
        let evidence = try LogReader(directory: directory + "/evidence").summary().bytes
        return Result(notificationsPerSecond: rate, pythonPerSecond: try python(bodies: bodies, root: root, directory: directory), evidenceBytesPerNotification: Double(evidence) / Double(count))
    }

    /// Apple's verifier on the same three JWS per notification, if Tools/setup-python installed it.
    static func python(bodies: [[UInt8]], root: String, directory: String) throws -> Double? {
        let python = ".build/python/bin/python"
        guard access(python, X_OK) == 0 else { return nil }
        var jws: [UInt8] = []
        for body in bodies {
            let notification = try ResponseBodyV2.decode(body).signedPayload!
            let payload = try NotificationPayload.decode(try CompactJWS(Array(notification.utf8)).payload)
            for text in [notification, payload.data!.signedTransactionInfo!, payload.data!.signedRenewalInfo!] {
                jws += Array(text.utf8) + [0x0A]
            }
        }
        let input = directory + "-jws.txt"
        defer { unlink(input) }
        writeBytes(input, jws)
        let began = now()
        let status = system("\(python) Tools/python/verify_with_apple.py --root \(root) --environment Production \(input) > /dev/null")
        let seconds = now() - began
        return status == 0 ? Double(bodies.count) / seconds : nil
    }

    static func writeBytes(_ path: String, _ bytes: [UInt8]) {
        guard let file = fopen(path, "wb") else { fatalError("cannot write \(path)") }
        fwrite(bytes, 1, bytes.count, file)
        fclose(file)
    }
}
