import Foundation
import SubledgerAppStoreAPI
import SubledgerHTTP
import SubledgerLedger
import SubledgerServer
import Synchronization
import Testing

/// Shutdown while Apple does not answer: the recovery in progress stops within seconds, not after
/// its retries and timeouts (5 × 60 s). The bounds leave a loaded machine room; the point is the
/// minutes they are not.
struct CancellationTests {
    /// A ledger whose API settings point at `baseURL` (no stand-in: nothing answers there).
    static func ledger(apiAt baseURL: String) throws -> Workload {
        let workload = try Workload(customers: 3, months: 1, seed: 81)
        let key = try APIKey(directory: workload.directory)
        let initialized = workload.cli(["init", "--bundle-id", "com.example.subledger", "--root", workload.simulation + "/root.cer", "--api-key", key.keyFile,
                                        "--api-key-id", key.keyId, "--api-issuer-id", key.issuerId, "--api-base-url", baseURL])
        guard initialized.exitCode == .success else { throw StandInError(message: "init failed") }
        return workload
    }

    @Test("serve's stop aborts a recovery whose request Apple never answers, within seconds")
    func stopAbortsTheRequestInFlight() throws {
        let endpoint = try SilentEndpoint()
        let workload = try Self.ledger(apiAt: endpoint.baseURL)
        let ledger = try Ledger(directory: workload.data)
        defer { ledger.close() }
        let lines = Mutex<[String]>([])
        let recovery = PeriodicRecovery(ledger: ledger, every: 3600, metrics: Metrics(), log: { line in lines.withLock { $0.append(line) } })
        recovery.start()
        try #require(endpoint.awaitClient(milliseconds: 60_000), "the recovery never connected")
        let started = Date()
        recovery.stop()
        #expect(Date().timeIntervalSince(started) < 20)
        #expect(lines.withLock { $0 }.contains { $0.contains("stopped for shutdown") }, "\(lines.withLock { $0 })")
    }

    @Test("a cancellation ends the wait between retries and starts no further attempt")
    func cancellationEndsTheRetryWait() throws {
        let endpoint = try SilentEndpoint()
        let refused = endpoint.baseURL.replacingOccurrences(of: "\(endpoint.port)", with: "1")
        let workload = try Self.ledger(apiAt: refused)
        let api = try #require(try APIConfiguration.load(directory: workload.data))
        let cancellation = APICancellation()
        let client = try api.client(directory: workload.data, bundleId: "com.example.subledger", environment: "Production",
                                    retry: RetryPolicy(initialBackoff: 60), cancellation: cancellation)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) { cancellation.cancel() }
        let started = Date()
        #expect {
            _ = try client.notificationHistory(start: 0, end: 1, paginationToken: nil)
        } throws: { error in
            guard case AppStoreAPIError.cancelled = error else { return false }
            return true
        }
        #expect(Date().timeIntervalSince(started) < 20, "the retry waits 60 s")
    }

    @Test("a connection reset during the TLS handshake is retried as any reset is, not reported as a certificate to check")
    func handshakeResetIsRetried() throws {
        let endpoint = try ResettingEndpoint()
        let workload = try Self.ledger(apiAt: endpoint.baseURL)
        let api = try #require(try APIConfiguration.load(directory: workload.data))
        let client = try api.client(directory: workload.data, bundleId: "com.example.subledger", environment: "Production",
                                    retry: RetryPolicy(initialBackoff: 0.01, maximumBackoff: 0.02))
        #expect {
            _ = try client.notificationHistory(start: 0, end: 1, paginationToken: nil)
        } throws: { error in
            guard case AppStoreAPIError.gaveUp(_, let attempts, let last, _) = error else { return false }
            return attempts == 5 && !last.contains("certificate") && !"\(error)".contains("--api-ca-file")
        }
        #expect(endpoint.connections == 5)
    }
}
