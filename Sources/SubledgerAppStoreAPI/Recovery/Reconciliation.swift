import SubledgerAppStore
import SubledgerEvents
import SubledgerJWS
import SubledgerLedger
import SubledgerLog
import SubledgerProjections

/// `appstore reconcile`: the ledger's view of each subscription against Apple's (Get All
/// Subscription Statuses). What Apple returns is ingested like everything else, which heals a
/// ledger that missed the latest transaction or renewal info; what still disagrees is listed.
public struct Reconciliation {
    /// A subscription's status and expiry as one side sees it.
    public struct Side: Sendable, Equatable {
        public var status: String?
        public var expiresAt: Int64?
    }

    public struct Disagreement: Sendable, Equatable {
        public var originalTransactionId: String
        public var ledger: Side
        public var apple: Side
    }

    public struct Summary: Sendable, Equatable {
        /// The subscriptions the run is to check, for its progress.
        public var toCheck = 0
        public var checked = 0
        public var agreed = 0
        public var healed = 0
        public var disagreed: [Disagreement] = []
        /// Subscriptions Apple refused (an id it does not know, 404): not checked, the others are.
        public var failed: [RefusedId] = []
        public var tally = IngestTally()
        /// Subscriptions not checked because the run stopped, and why it did.
        public var notChecked = 0
        public var stoppedBy: AppStoreAPIError?
    }

    /// Apple's `status` values as the ledger names them.
    static let statusNames = [1: "active", 2: "expired", 3: "billing_retry", 4: "grace_period", 5: "revoked"]

    let ledger: Ledger
    let client: AppStoreServerAPIClient
    let clock: @Sendable () -> Int64

    public init(ledger: Ledger, client: AppStoreServerAPIClient, clock: @escaping @Sendable () -> Int64) {
        self.ledger = ledger
        self.client = client
        self.clock = clock
    }

    /// Checks the ledger's auto-renewable subscriptions of `environment`, the `limit` most
    /// recently active when given. A subscription Apple refuses is listed in `failed` and the
    /// others go on; any other API error stops the run (every other subscription would fail the
    /// same way) with what was checked so far and `stoppedBy`.
    /// `reading` is told the log records read while the subscriptions are gathered (the whole
    /// log, whatever `limit`: a subscription's latest activity may be anywhere in it), every 64 Ki.
    public func run(
        limit: Int?, environment: String, reading: (Int) -> Void = { _ in }, progress: (Summary) -> Void = { _ in }
    ) throws -> Summary {
        var subscriptions = try Self.subscriptions(logDirectory: ledger.layout.log, environment: environment, reading: reading)
        if let limit { subscriptions = Array(subscriptions.prefix(limit)) }
        var summary = Summary()
        summary.toCheck = subscriptions.count
        for (index, original) in subscriptions.enumerated() {
            let before = try ledgerSide(original)
            let statuses: SubscriptionStatuses
            do {
                statuses = try client.subscriptionStatuses(transactionId: original)
            } catch where error.concernsOnlyThisId {
                summary.failed.append(RefusedId(original, error))
                progress(summary)
                continue
            } catch {
                summary.stoppedBy = error
                summary.notChecked = subscriptions.count - index
                return summary
            }
            summary.checked += 1
            let item = (statuses.data ?? []).flatMap { $0.lastTransactions ?? [] }.first { $0.originalTransactionId == original }
            let apple = Side(status: item?.status.flatMap { Self.statusNames[$0] },
                             expiresAt: item?.signedTransactionInfo.flatMap(Self.expiresDate))
            try summary.tally.ingest([item?.signedTransactionInfo, item?.signedRenewalInfo].compactMap { $0 },
                                     source: "appstore reconcile \(original)", into: ledger, recordedAt: clock())
            if before == apple {
                summary.agreed += 1
            } else {
                let after = try ledgerSide(original)
                if after == apple {
                    summary.healed += 1
                } else {
                    summary.disagreed.append(Disagreement(originalTransactionId: original, ledger: after, apple: apple))
                }
            }
            progress(summary)
        }
        return summary
    }

    /// The subscription's state in the ledger now.
    private func ledgerSide(_ original: String) throws -> Side {
        let now = clock()
        let state = try? ledger.read { try $0.customer(CustomerQuery(id: original, asOf: now)) }
        let subscription = state?.subscriptions.first { $0.originalTransactionId == original }
        return Side(status: subscription?.status.rawValue, expiresAt: subscription?.expiresAt)
    }

    /// `expiresDate` of a signed transaction, read for comparison only: ingestion verifies it.
    static func expiresDate(_ jws: String) -> Int64? {
        guard let parsed = try? CompactJWS(Array(jws.utf8)) else { return nil }
        return (try? TransactionPayload.decode(parsed.payload))?.expiresDate
    }

    /// The auto-renewable subscriptions the log knows in `environment`, most recently active first.
    static func subscriptions(logDirectory: String, environment: String, reading: (Int) -> Void) throws -> [String] {
        var latest: [String: Int64] = [:]
        var read = 0
        try LogReader(directory: logDirectory).scan { entry in
            read += 1
            if read % 65_536 == 0 { reading(read) }
            // An event record is its recorded-at time (8 bytes) and then the event.
            guard entry.kind == Ledger.eventKind, entry.payload.count > EventRecord.headerSize,
                  let event = try? EventView(UnsafeRawBufferPointer(rebasing: entry.payload[EventRecord.headerSize...])),
                  event.environment?.string ?? environment == environment,
                  let transaction = event.transaction, transaction.type?.string == "Auto-Renewable Subscription",
                  let original = transaction.originalTransactionId?.string
            else { return true }
            latest[original] = max(latest[original] ?? .min, event.effectiveAt)
            return true
        }
        return latest.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map(\.key)
    }
}
