import SubledgerCore
import SubledgerLedger
import SubledgerLog
import SubledgerProjections

/// `subledger stats`: sizes and counts of the data directory; zeros for a ledger nothing was
/// ingested into yet.
enum StatsCommand: Command {
    static let help = CommandHelp(
        name: "stats", summary: "sizes and counts of the data directory",
        usage: "stats",
        notes: ["lag: events in the log after the projection snapshot (what a restart folds again).",
                "projection database: its bytes in use, about the free disk a rebuild (an upgrade's) needs beside it (three times it in batches).",
                "last backup: the last `backup` of this directory that completed and verified.",
                "CSV: field,value records, sizes in bytes."],
        example: "subledger stats --json")

    struct Result: DocumentOutput {
        var events: LogSummary?
        var evidence: LogSummary?
        var quarantine: LogSummary?
        var customers: Int
        var quarantined: Int
        var checkpoint: String?
        var eventsFolded: Int
        var lastBackup: LastBackup?
        var projectionBytes: Int
        var diskFree: Int64?

        /// Every log's, as `verify` counts them.
        var segments: Int { [events, evidence, quarantine].reduce(0) { $0 + ($1?.segments ?? 0) } }
        /// Every message stored is one event record, so messages are counted as `head` counts
        /// them, from the event log, not from the evidence: an append whose events were cut as a
        /// torn tail leaves its evidence behind, and ingesting the message again stores it anew.
        var messages: Int { Int(events?.records ?? 0) }
        var lag: Int { max(0, Int(events?.records ?? 0) - eventsFolded) }

        var document: JSON {
            JSON.object([
                ("messages", .int(messages)),
                ("events", .int(events?.records ?? 0)),
                ("logBytes", .int(events?.bytes ?? 0)),
                ("evidenceBytes", .int(evidence?.bytes ?? 0)),
                ("segments", .int(segments)),
                ("lastPosition", .optional(events?.lastPosition?.description)),
                ("customers", .int(customers)),
                ("quarantined", .int(quarantined)),
                ("projections", .array([.object([
                    ("name", .string("customers")), ("version", .int(ProjectionStore.schemaVersion)),
                    ("checkpoint", .optional(checkpoint)), ("lag", .int(lag)), ("events", .int(eventsFolded)),
                ])])),
                ("projectionBytes", .int(projectionBytes)),
                ("diskFree", .optional(diskFree)),
                ("lastBackup", lastBackup.map { backup in
                    .object([("at", .string(UTCInstant.iso8601(backup.completedAt))), ("to", .string(backup.to)), ("logEnd", .string(backup.logEnd))])
                } ?? .null),
            ])
        }

        var tabulation: Tabulation {
            Tabulation(facts: [
                ("messages", .count(messages)),
                ("events", .count(Int(events?.records ?? 0))),
                ("log", .bytes(Int64(events?.bytes ?? 0))),
                ("evidence", .bytes(Int64(evidence?.bytes ?? 0))),
                ("segments", .count(segments)),
                ("last position", .text(events?.lastPosition?.description)),
                ("customers", .count(customers)),
                ("quarantined", .count(quarantined)),
                ("projection", .text("customers v\(ProjectionStore.schemaVersion), checkpoint \(checkpoint ?? "-"), lag \(lag)")),
                ("projection database", .bytes(Int64(projectionBytes))),
                ("disk free", diskFree.map { .bytes($0) } ?? .text(nil)),
                ("last backup", .text(lastBackup.map { "\(UTCInstant.iso8601($0.completedAt)) to \($0.to)" } ?? "none noted in this directory")),
            ])
        }
    }

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        let data = context.data
        try data.requireExisting()
        // The projection database after folding what the log holds beyond its checkpoint; lag is
        // what it has not folded (a running server folds it moments after each acknowledgement).
        // Read before the logs: beside a server appending, a log read first showed a checkpoint
        // past its own last position.
        let reader = try data.reader().projections
        let projection = try reader.summary()
        let events = FileIO.exists(data.log) ? try LogReader(directory: data.log).summary() : nil
        let evidence = FileIO.exists(data.evidence) ? try LogReader(directory: data.evidence).summary() : nil
        let quarantine = FileIO.exists(data.layout.quarantine) ? try LogReader(directory: data.layout.quarantine).summary() : nil
        // Counted as they are, but said: a power loss's last batch, which the next open cuts.
        if let last = events?.lastPosition, let end = evidence?.endPosition,
           let problem = try EvidenceCoverage.problem(directory: data.path, lastEvent: last, evidenceEnd: end) {
            Output.diagnostic(data.spelling("subledger stats: warning: the counts include events whose evidence is not in the evidence log: \(problem.detail); `subledger verify` names them"))
        }
        return CommandResult(Result(
            events: events, evidence: evidence, quarantine: quarantine, customers: projection.customers,
            quarantined: try Ledger.quarantinedCount(directory: data.path), checkpoint: projection.checkpoint?.description,
            eventsFolded: projection.events, lastBackup: LastBackup.load(directory: data.path), projectionBytes: try reader.usedBytes(),
            diskFree: FileSystemSpace.available(at: data.path)))
    }
}
