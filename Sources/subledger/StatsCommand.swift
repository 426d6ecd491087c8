import SubledgerLedger
import SubledgerProjections
import SubledgerLog

/// `subledger stats`: sizes and counts of the data directory.
enum StatsCommand {
    static func run(_ arguments: Arguments, _ data: DataDirectory) throws -> ExitCode {
        try arguments.allow()
        try data.requireExisting()
        let events = DataDirectory(data.log).exists ? try LogReader(directory: data.log).summary() : nil
        let evidence = DataDirectory(data.evidence).exists ? try LogReader(directory: data.evidence).summary() : nil
        let segments = (events?.segments ?? 0) + (evidence?.segments ?? 0)
        let messages = try Ledger.messageCount(evidenceDirectory: data.evidence)
        let quarantined = try Ledger.quarantinedCount(directory: data.path)
        // Read-only: the snapshot plus the log after it. The checkpoint and lag are the
        // snapshot's: events a restart would fold again (a server writes snapshots now and then).
        let projection = try LedgerReader.open(directory: data.path).projection
        let snapshot = ProjectionStore.snapshotCheckpoint(directory: data.layout.projections)
        let lag = max(0, Int(events?.records ?? 0) - (snapshot?.events ?? 0))
        if arguments.json {
            Output.print(JSON.object([
                ("messages", .int(messages)),
                ("events", .int(events?.records ?? 0)),
                ("logBytes", .int(events?.bytes ?? 0)),
                ("evidenceBytes", .int(evidence?.bytes ?? 0)),
                ("segments", .int(segments)),
                ("lastPosition", .optional(events?.lastPosition?.description)),
                ("customers", .int(projection.customerCount)),
                ("quarantined", .int(quarantined)),
                ("projections", .array([.object([
                    ("name", .string("customers")), ("version", .int(ProjectionStore.schemaVersion)),
                    ("checkpoint", .optional(snapshot?.checkpoint?.description)), ("lag", .int(lag)),
                    ("events", .int(projection.eventsFolded)),
                ])])),
            ]).serialized())
        } else {
            Output.print(Output.table(["", ""], [
                ["messages", String(messages)],
                ["events", String(events?.records ?? 0)],
                ["log bytes", String(events?.bytes ?? 0)],
                ["evidence bytes", String(evidence?.bytes ?? 0)],
                ["segments", String(segments)],
                ["last position", events?.lastPosition?.description ?? "-"],
                ["customers", String(projection.customerCount)],
                ["quarantined", String(quarantined)],
                ["projection", "customers v\(ProjectionStore.schemaVersion), snapshot at \(snapshot?.checkpoint?.description ?? "-"), lag \(lag)"],
            ]))
        }
        return .success
    }
}
