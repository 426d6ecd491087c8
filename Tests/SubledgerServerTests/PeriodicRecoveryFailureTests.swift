import Foundation
import SubledgerHTTP
import SubledgerLedger
import SubledgerServer
import SubledgerTestSupport
import Synchronization
import Testing

@Suite("serve's periodic recovery")
struct PeriodicRecoveryFailureTests {
    @Test("a run that fails is counted on /metrics and said in the log, so an operator can alert on it before the last-success gauge goes stale")
    func failuresAreCounted() throws {
        let directory = TemporaryDirectory()
        _ = try Ledger.initialize(directory: directory.path, bundleId: "com.example.subledger", appAppleId: nil, environments: ["Production"],
                                  rootFiles: [], smallBusiness: false, catalogFile: nil)
        let ledger = try Ledger(directory: directory.path)
        defer { ledger.close() }
        let metrics = Metrics()
        let lines = Mutex<[String]>([])
        // No API credentials: every run fails at once.
        let recovery = PeriodicRecovery(ledger: ledger, every: 3600, metrics: metrics, log: { line in lines.withLock { $0.append(line) } })
        recovery.start()
        let deadline = Date().addingTimeInterval(30)
        while lines.withLock({ $0.isEmpty }) && Date() < deadline { usleep(10_000) }
        recovery.stop()
        #expect(metrics.render().contains("\nsubledger_appstore_recovery_failures_total 1\n"), "\(metrics.render())")
        #expect(lines.withLock { $0 }.contains { $0.hasPrefix("serve: App Store recovery failed") }, "\(lines.withLock { $0 })")
    }
}
