import SubledgerLedger

/// What the signed data of API answers came to once ingested.
public struct IngestTally: Sendable, Equatable {
    public struct Rejection: Sendable, Equatable {
        /// Where it came from: the endpoint and page, e.g. `notificationHistory page 3`.
        public var source: String
        /// 1-based position in that answer.
        public var item: Int
        public var reason: String
        public var detail: String
    }

    public var received = 0
    public var appended = 0
    public var duplicates = 0
    public var rejections: [Rejection] = []

    public init() {}

    /// Ingests one answer's signed messages in one call, so the answer is stored whole (one
    /// group commit) or not at all, and rejected ones are quarantined like the webhook's.
    mutating func ingest(_ signed: [String], source: String, into ledger: Ledger, recordedAt: Int64) throws {
        try ingest(signed.enumerated().map { (text: $1, source: source, item: $0 + 1) }, into: ledger, recordedAt: recordedAt)
    }

    /// Ingests messages of several answers in one call, each named by its answer and position.
    mutating func ingest(_ messages: [(text: String, source: String, item: Int)], into ledger: Ledger, recordedAt: Int64) throws {
        guard !messages.isEmpty else { return }
        let lines = messages.map { IngestLine(bytes: Array($0.text.utf8), line: $0.item, source: $0.source, takesRenewalInfo: true) }
        let outcomes = try ledger.ingest(lines, recordedAt: recordedAt)
        received += lines.count
        for (line, outcome) in zip(lines, outcomes) {
            switch outcome {
            case .appended: appended += 1
            case .duplicate: duplicates += 1
            case .rejected(let reason, let detail): rejections.append(Rejection(source: line.source, item: line.line, reason: reason, detail: detail))
            }
        }
    }
}
