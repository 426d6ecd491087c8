import SubledgerLedger

/// `appstore backfill`: for each transaction id, every page of Get Transaction History v2 and
/// Get All Subscription Statuses, their signed transactions and renewal infos ingested like
/// `ingest` does, so customers from before the ledger get their whole history.
public struct Backfill {
    public struct Failure: Sendable, Equatable {
        public var id: String
        public var status: Int?
        public var error: String
    }

    public struct Summary: Sendable, Equatable {
        public var ids = 0
        public var requests = 0
        public var tally = IngestTally()
        public var failed: [Failure] = []
    }

    let ledger: Ledger
    let client: AppStoreServerAPIClient
    let clock: @Sendable () -> Int64

    public init(ledger: Ledger, client: AppStoreServerAPIClient, clock: @escaping @Sendable () -> Int64) {
        self.ledger = ledger
        self.client = client
        self.clock = clock
    }

    /// Backfills every id; an id Apple refuses is listed in `failed` and the rest go on, but
    /// refused credentials stop the run (every other id would fail the same way).
    public func run(ids: [String], progress: (Summary) -> Void = { _ in }) throws -> Summary {
        var summary = Summary()
        for id in ids {
            summary.ids += 1
            do {
                try backfill(id, into: &summary)
            } catch let error as AppStoreAPIError {
                if case .credentialsRejected = error { throw error }
                summary.failed.append(Failure(id: id, status: error.status, error: error.description))
            }
            progress(summary)
        }
        return summary
    }

    private func backfill(_ id: String, into summary: inout Summary) throws {
        var revision: String?
        var page = 0
        repeat {
            let history = try client.transactionHistory(transactionId: id, revision: revision)
            summary.requests += 1
            page += 1
            try summary.tally.ingest(history.signedTransactions ?? [], source: "appstore backfill \(id) history page \(page)", into: ledger, recordedAt: clock())
            revision = history.hasMore == true ? history.revision : nil
        } while revision != nil
        let statuses = try client.subscriptionStatuses(transactionId: id)
        summary.requests += 1
        let latest = (statuses.data ?? []).flatMap { $0.lastTransactions ?? [] }.flatMap { [$0.signedTransactionInfo, $0.signedRenewalInfo].compactMap { $0 } }
        try summary.tally.ingest(latest, source: "appstore backfill \(id) statuses", into: ledger, recordedAt: clock())
    }
}
