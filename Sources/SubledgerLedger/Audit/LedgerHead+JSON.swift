import SubledgerCore

/// The contract's `head --json` document (`GET /v1/head`), then where the covered bytes of each
/// log end, so an auditor can tell what a later append left outside the digest.
extension LedgerHead {
    public var json: JSON {
        .object([
            ("position", .string(position.description)),
            ("events", .int(events)),
            ("messages", .int(messages)),
            ("hash", .string(hex)),
            ("logEnd", .string(eventLogEnd.description)),
            ("evidenceEnd", .string(evidenceEnd.description)),
        ])
    }
}
