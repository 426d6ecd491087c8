import SubledgerCore
import SubledgerLedger

/// `appstore recover`: every page of Get Notification History over a window, each page ingested
/// through the webhook's path, so notifications that did arrive are duplicates and the ones that
/// did not are appended.
///
/// The window is walked in slices of `slice`, and the watermark moves after each, so a run
/// stopped by a crash or a fault resumes from the last finished slice.
public struct NotificationRecovery {
    /// How far back Apple keeps notification history.
    public static let historyLimit: Int64 = 180 * 86_400_000
    public static let slice: Int64 = 7 * 86_400_000

    public struct Summary: Sendable, Equatable {
        public var environment: String
        public var since: Int64
        public var until: Int64
        public var pages = 0
        public var tally = IngestTally()
        /// Why the run stopped before `until` (what it stored before stays, and the watermark
        /// is at the last finished slice).
        public var stoppedBy: AppStoreAPIError?
    }

    let ledger: Ledger
    let client: AppStoreServerAPIClient
    let watermark: RecoveryWatermark
    let environment: String
    let metrics: APIMetrics
    let clock: @Sendable () -> Int64

    public init(ledger: Ledger, client: AppStoreServerAPIClient, environment: String, metrics: APIMetrics, clock: @escaping @Sendable () -> Int64) {
        self.ledger = ledger
        self.client = client
        self.environment = environment
        self.metrics = metrics
        self.clock = clock
        watermark = RecoveryWatermark(directory: ledger.directory, environment: environment)
    }

    /// The window a run covers: an explicit `since` is sent as given (Apple refuses what is too
    /// old, and the error says so); the default starts at the watermark, clamped to Apple's limit.
    /// It ends now at the latest: Apple has nothing later, and a window into the future would
    /// move the watermark past what was fetched.
    public func window(since: Int64?, until: Int64?) -> (since: Int64, until: Int64) {
        let now = clock()
        let until = min(until ?? now, now)
        let since = since ?? max(watermark.covered(now: now) ?? 0, Self.earliestKept(now: now))
        return (since, until)
    }

    /// The time since the watermark that Apple no longer keeps, when there is some (recovery
    /// off, or the server down, for longer than 180 days): what arrived then and was missed
    /// cannot be recovered, and a run from the limit moves the watermark past it.
    public func lost() -> Range<Int64>? {
        let now = clock()
        guard let covered = watermark.covered(now: now), covered < Self.earliestKept(now: now) else { return nil }
        return covered..<Self.earliestKept(now: now)
    }

    /// What `lost()` means, for the operator: the command and the server's periodic recovery say it alike.
    public static func notice(lost: Range<Int64>) -> String {
        "the last recovery ended at \(UTCInstant.iso8601(lost.lowerBound)), and Apple keeps 180 days of notification history: "
            + "what the webhook missed before \(UTCInstant.iso8601(lost.upperBound)) can no longer be recovered"
    }

    /// The earliest instant Apple still has notifications for, an hour inside its limit so that
    /// a request sent later is not refused as too old: a first request throttled for 70 s, a
    /// minute inside, was (Apple's waits can be minutes, and the request keeps its start).
    static func earliestKept(now: Int64) -> Int64 { now - historyLimit + 3_600_000 }

    /// What the fetching thread hands over: a page, or the end of a slice (all its pages sent).
    enum Fetched: Sendable {
        case page(NotificationHistoryPage)
        case sliceDone(end: Int64)
    }

    /// Recovers `since..<until`; `progress` gets the running summary after every stored batch.
    /// An API error ends the run with what was stored so far and `stoppedBy`; a storage error
    /// is thrown.
    ///
    /// Pages are fetched ahead on another thread; what arrived while the last batch was stored
    /// is stored in one call (whole pages, one group commit), and the watermark moves once a
    /// slice's pages are all durable.
    public func run(since: Int64, until requested: Int64, progress: (Summary) -> Void = { _ in }) throws -> Summary {
        let now = clock()
        let until = min(requested, now)
        var summary = Summary(environment: environment, since: since, until: until)
        let stored = watermark.covered(now: now)
        // One past now is set back for good (see `covered`).
        if let stored, watermark.load() != stored { try watermark.save(stored) }
        // Only a run that starts within what is already covered may move the watermark: a
        // window further on would leave a hole behind it. One that starts as far back as Apple
        // keeps leaves none it could fill: a watermark older than that (recovery off, or the
        // server down, for six months) never moved again, and every run read all 180 days.
        // Without a watermark nothing is covered yet: a first run with a later `--since` set it
        // to its end, and every default run after it started there, past what it had skipped.
        let extendsCoverage = since <= max(stored ?? .min, Self.earliestKept(now: now))
        let client = UncheckedClient(client: client)
        let prefetcher = PagePrefetcher<Fetched>(capacity: Self.pagesAhead) { send in
            var start = since
            while start < until {
                let end = min(until, start + Self.slice)
                var token: String?
                var cursor = PageCursor(field: "paginationToken", endpoint: "notificationHistory", scope: "this window")
                repeat {
                    let page = try client.client.notificationHistory(start: start, end: end, paginationToken: token)
                    // An item without its JWS was dropped unseen, the window counted as recovered.
                    guard (page.notificationHistory ?? []).allSatisfy({ $0.signedPayload?.isEmpty == false }) else {
                        throw AppStoreAPIError.invalidResponse(endpoint: "notificationHistory", detail: "a notificationHistory item without its signedPayload")
                    }
                    guard send(.page(page)) else { return }
                    token = try cursor.next(hasMore: page.hasMore, page.paginationToken, items: (page.notificationHistory ?? []).compactMap(\.signedPayload))
                } while token != nil
                guard send(.sliceDone(end: end)) else { return }
                start = end
            }
        }
        defer { prefetcher.cancel() }
        while true {
            let batch = prefetcher.takeAll()
            var signed: [(text: String, source: String, item: Int)] = []
            var finishedSlice: Int64?
            var ending: PagePrefetcher<Fetched>.Delivery?
            for delivery in batch {
                switch delivery {
                case .item(.page(let page)):
                    summary.pages += 1
                    let source = "appstore recover page \(summary.pages)"
                    signed += (page.notificationHistory ?? []).compactMap(\.signedPayload).enumerated().map { (text: $1, source: source, item: $0 + 1) }
                case .item(.sliceDone(let end)):
                    finishedSlice = end
                case .failed, .finished:
                    ending = delivery
                }
            }
            try summary.tally.ingest(signed, into: ledger, recordedAt: clock())
            if extendsCoverage, let end = finishedSlice, end > (stored ?? Int64.min) { try watermark.save(end) }
            progress(summary)
            switch ending {
            case .failed(let error as AppStoreAPIError):
                summary.stoppedBy = error
                return summary
            case .failed(let error): throw error
            case .finished:
                metrics.recovered(appended: summary.tally.appended, completedAt: clock())
                return summary
            default: continue
            }
        }
    }

    /// Pages fetched ahead of the one being stored.
    static let pagesAhead = 16
}

/// The client moves to the fetching thread and is used there alone while the run lasts.
private struct UncheckedClient: @unchecked Sendable {
    let client: AppStoreServerAPIClient
}
