import Dispatch
import SubledgerAppStoreAPI
import SubledgerHTTP
import SubledgerLedger
import Synchronization

/// `serve --recover-every`: runs `appstore recover` in the server on a period, through the
/// server's own ledger (the webhook and the recovery share its group commit), and publishes the
/// API metrics on `/metrics`.
///
/// The first run starts right away, so a restart after an outage heals the gap at once. A run
/// that fails (Apple down, credentials wrong) is logged and tried again at the next period; the
/// watermark makes the next run start where the last durable page ended.
public final class PeriodicRecovery: Sendable {
    private let ledger: Ledger
    private let period: Double
    private let environments: [String]
    private let api: APIMetrics
    private let published = Mutex(APIMetrics.Snapshot())
    private let log: @Sendable (String) -> Void
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    /// Aborts the run in progress at shutdown: Apple may not answer for minutes.
    private let cancellation = APICancellation()
    private let finished = DispatchSemaphore(value: 0)
    private let requests: Metrics.Counter
    private let throttled: Metrics.Counter
    private let recovered: Metrics.Counter
    private let lastRecovery: Metrics.Gauge
    private let failures: Metrics.Counter

    public init(ledger: Ledger, every period: Double, metrics: Metrics, log: @escaping @Sendable (String) -> Void) {
        self.ledger = ledger
        self.period = period
        self.log = log
        environments = ledger.configuration.environments.filter { $0 == "Production" || $0 == "Sandbox" }
        api = APIMetrics()
        requests = metrics.counter("subledger_appstore_api_requests_total", help: "App Store Server API requests, by endpoint and HTTP status (0: no response)", labelNames: ["endpoint", "status"])
        throttled = metrics.counter("subledger_appstore_api_throttled_waits_total", help: "429 answers waited out")
        recovered = metrics.counter("subledger_appstore_notifications_recovered_total", help: "Notifications appended by periodic recovery")
        lastRecovery = metrics.gauge("subledger_appstore_last_recovery_timestamp_seconds", help: "When the last periodic recovery completed (Unix time)")
        failures = metrics.counter("subledger_appstore_recovery_failures_total", help: "Periodic recoveries that stopped on an error (its cause is in the server's log)")
    }

    /// Starts the loop on a thread of its own.
    public func start() {
        DispatchQueue.global(qos: .utility).async { [self] in
            while !stopped.load(ordering: .acquiring) {
                runOnce()
                _ = wake.wait(timeout: .now() + period)
            }
            finished.signal()
        }
    }

    /// Stops the loop, cancelling the run in progress: its request in flight is aborted and its
    /// retries dropped. What it stored is durable, and the watermark only ever moved past whole
    /// slices, so the next start resumes there.
    public func stop() {
        stopped.store(true, ordering: .releasing)
        cancellation.cancel()
        wake.signal()
        finished.wait()
    }

    private func runOnce() {
        do {
            guard let configuration = try APIConfiguration.load(directory: ledger.directory) else { throw APISetupError.notConfigured }
            for environment in environments where !stopped.load(ordering: .acquiring) {
                // Each wait is said, as the command says it: a throttled run was silent for minutes.
                let client = try configuration.client(directory: ledger.directory, bundleId: ledger.configuration.bundleId, environment: environment,
                                                      metrics: api, cancellation: cancellation,
                                                      notice: { [log] line in log("serve: recovering \(environment): \(line)") })
                let recovery = NotificationRecovery(ledger: ledger, client: client, environment: environment, metrics: api, clock: WallTime.nowMillis)
                let window = recovery.window(since: nil, until: nil)
                if let lost = recovery.lost() {
                    log("serve: recovering \(environment): " + NotificationRecovery.notice(lost: lost))
                }
                let summary = try recovery.run(since: window.since, until: window.until) { _ in publish() }
                if let error = summary.stoppedBy { throw error }
                log("serve: recovered \(environment): \(summary.pages) pages, \(summary.tally.appended) appended, \(summary.tally.duplicates) duplicates, \(summary.tally.rejections.count) rejected")
            }
        } catch AppStoreAPIError.cancelled {
            log("serve: App Store recovery stopped for shutdown; the next start resumes after the last finished slice")
        } catch {
            failures.increment()
            log("serve: App Store recovery failed, trying again in \(Int(period)) s: \(error)")
        }
        publish()
    }

    /// Adds what the API metrics gained since the last call to the server's counters.
    private func publish() {
        let now = api.snapshot
        published.withLock { before in
            for (key, count) in now.requests where count > before.requests[key, default: 0] {
                requests.increment(by: Double(count - before.requests[key, default: 0]), labels: [key.endpoint, String(key.status)])
            }
            if now.throttledWaits > before.throttledWaits { throttled.increment(by: Double(now.throttledWaits - before.throttledWaits)) }
            if now.notificationsRecovered > before.notificationsRecovered {
                recovered.increment(by: Double(now.notificationsRecovered - before.notificationsRecovered))
            }
            if let millis = now.lastRecoveryMillis { lastRecovery.set(Double(millis) / 1000) }
            before = now
        }
    }
}
