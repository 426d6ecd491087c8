/// What reading every byte of a log up to a cut found: the prefix digest those bytes give, and
/// every place where they are not what the log's own checks expect.
public struct LogPrefixAudit: Sendable {
    /// One damaged place, with the global position of its first byte.
    public struct Finding: Sendable, Equatable {
        public var problem: LogProblem
        public var position: LogPosition
        /// Whether a record's frame starts at `position` (so the finding names that record).
        public var atRecord: Bool
    }

    public var digest: [UInt8]
    public var findings: [Finding]
    /// The segment holding the cut, when it has been sealed since and its records no longer
    /// match its footer: a record in it was edited, before the cut or after it. Only a digest
    /// that differs says it was before, so it is not among `findings`.
    public var cutSegmentEdited: Finding?
}
