import SubledgerLedger

/// `appstore backfill`: for each transaction id, every page of Get Transaction History v2 and
/// Get All Subscription Statuses, their signed transactions and renewal infos ingested like
/// `ingest` does, so customers from before the ledger get their whole history.
public struct Backfill {
    public struct Summary: Sendable, Equatable {
        public var ids = 0
        /// HTTP requests sent, retries and failures included.
        public var requests = 0
        public var tally = IngestTally()
        public var failed: [RefusedId] = []
        /// Ids whose history and statuses were all stored, in order.
        public var done: [String] = []
        /// Ids not tried because the run stopped (the one it stopped at is in `failed`).
        public var notDone: [String] = []
        /// Why the run stopped before the last id: an error no other id would escape.
        public var stoppedBy: AppStoreAPIError?
    }

    let ledger: Ledger
    let client: AppStoreServerAPIClient
    let clock: @Sendable () -> Int64

    public init(ledger: Ledger, client: AppStoreServerAPIClient, clock: @escaping @Sendable () -> Int64) {
        self.ledger = ledger
        self.client = client
        self.clock = clock
    }

    /// Backfills every id; an id Apple refuses is listed in `failed` and the rest go on. Any
    /// other API error (refused credentials, Apple or the network down after the retries) stops
    /// the run, since every other id would fail the same way after the same waits.
    public func run(ids: [String], progress: (Summary) -> Void = { _ in }) throws -> Summary {
        var summary = Summary()
        let sentBefore = client.requestsSent
        for (index, id) in ids.enumerated() {
            summary.ids += 1
            do {
                try backfill(id, into: &summary)
                summary.done.append(id)
            } catch let error as AppStoreAPIError {
                summary.failed.append(RefusedId(id, error))
                if !error.concernsOnlyThisId {
                    summary.stoppedBy = error
                    summary.notDone = Array(ids[(index + 1)...])
                }
            }
            summary.requests = client.requestsSent - sentBefore
            progress(summary)
            if summary.stoppedBy != nil { break }
        }
        return summary
    }

    private func backfill(_ id: String, into summary: inout Summary) throws {
        var revision: String?
        var cursor = PageCursor(field: "revision", endpoint: "transactionHistory", scope: "transaction \(id)")
        var page = 0
        repeat {
            let history = try client.transactionHistory(transactionId: id, revision: revision)
            page += 1
            try summary.tally.ingest(history.signedTransactions ?? [], source: "appstore backfill \(id) history page \(page)", into: ledger, recordedAt: clock())
            revision = try cursor.next(hasMore: history.hasMore, history.revision, items: history.signedTransactions ?? [])
        } while revision != nil
        let statuses = try client.subscriptionStatuses(transactionId: id)
        let latest = (statuses.data ?? []).flatMap { $0.lastTransactions ?? [] }.flatMap { [$0.signedTransactionInfo, $0.signedRenewalInfo].compactMap { $0 } }
        try summary.tally.ingest(latest, source: "appstore backfill \(id) statuses", into: ledger, recordedAt: clock())
    }
}
