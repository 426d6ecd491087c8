import SubledgerLedger
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
        if arguments.json {
            Output.print(JSON.object([
                ("messages", .int(messages)),
                ("events", .int(events?.records ?? 0)),
                ("logBytes", .int(events?.bytes ?? 0)),
                ("evidenceBytes", .int(evidence?.bytes ?? 0)),
                ("segments", .int(segments)),
                ("lastPosition", .optional(events?.lastPosition?.description)),
                ("quarantined", .int(quarantined)),
            ]).serialized())
        } else {
            Output.print(Output.table(["", ""], [
                ["messages", String(messages)],
                ["events", String(events?.records ?? 0)],
                ["log bytes", String(events?.bytes ?? 0)],
                ["evidence bytes", String(evidence?.bytes ?? 0)],
                ["segments", String(segments)],
                ["last position", events?.lastPosition?.description ?? "-"],
                ["quarantined", String(quarantined)],
            ]))
        }
        return .success
    }
}
