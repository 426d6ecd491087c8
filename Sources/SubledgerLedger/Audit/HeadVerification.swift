import SubledgerLog

/// What `verify --head HASH --at POSITION` found: the head the ledger's bytes give now, and every
/// place before the position where they are not what the log's own checks expect.
public struct HeadVerification: Sendable {
    /// One place that differs, in the event log (`log`) or the evidence log (`evidence`), or
    /// (`ledger`, a `digest_mismatch`) somewhere in the two.
    public struct Problem: Sendable, Equatable {
        public var log: String
        public var file: String
        public var offset: Int64
        /// The global position of `offset`.
        public var position: LogPosition
        /// `crc_mismatch`, `bad_length`, `chain_mismatch`, `torn_tail`, `truncated`, or
        /// `digest_mismatch` (every check passes but the bytes are not the ones published).
        public var kind: String
        public var detail: String
        /// The events the damage is in: the event itself, or the events whose evidence it is in.
        public var events: [LogPosition]
    }

    public var position: LogPosition
    /// The published digest, as given.
    public var expected: String
    /// The head these bytes give; nil when the event at `position` cannot be read.
    public var actual: LedgerHead?
    public var problems: [Problem]

    public var ok: Bool { problems.isEmpty }
}

extension HeadVerification.Problem {
    init(_ finding: LogPrefixAudit.Finding, log: String, events: [LogPosition]) {
        self.init(log: log, file: finding.problem.file, offset: finding.problem.offset, position: finding.position,
                  kind: finding.problem.kind.rawValue, detail: finding.problem.detail, events: events)
    }
}
