import SubledgerCore
import SubledgerLedger
import SubledgerLog

/// `subledger backup --to DIR`: a consistent, verified copy of the data directory, also while
/// `serve` runs; run again into the same DIR, it copies only what is new.
enum BackupCommand: Command {
    static let help = CommandHelp(
        name: "backup", summary: "copy the data directory, also while it serves; verified, incremental",
        usage: "backup --to DIR [--without-projections]",
        options: [
            .init("--to", "DIR", "where the backup goes: new, empty, or an earlier backup of this ledger (brought up to date)"),
            .init("--without-projections", "leave the projection database out (1.7 GB copied whole each time at 10 M events): opening the backup rebuilds it from the log, about 2 s a million events"),
        ],
        notes: [
            "The backup holds every event acknowledged before it began and is itself a data directory:",
            "`subledger --data DIR verify` checks it, `--data DIR` opens it. Sealed log segments already in DIR",
            "are skipped; the projection database and dedup index are copied whole (LMDB's own copy), with the",
            "settings, roots, catalog and App Store Server API key (appstore/, kept readable by its owner only).",
            "Exit 3 when the copy fails verification, or stops at damage in the ledger (DIR is then marked",
            "BACKUP-INCOMPLETE, which verify and every read of DIR report, until a backup completes); exit 2 when DIR holds anything else (another ledger, another app's config.json, other files).",
        ],
        example: "subledger --data /srv/subledger backup --to /backup/subledger --json")

    struct Result: DocumentOutput {
        var summary: LedgerBackup.Summary

        var document: JSON {
            func log(_ copy: LogCopy.Summary) -> JSON {
                .object([
                    ("segmentsCopied", .int(copy.segmentsCopied)), ("segmentsSkipped", .int(copy.segmentsSkipped)),
                    ("bytesCopied", .int(copy.bytesCopied)), ("end", .string(copy.end.description)),
                ])
            }
            return JSON.object([
                ("to", .string(summary.destination)),
                ("log", log(summary.events)), ("evidence", log(summary.evidence)), ("quarantine", log(summary.quarantine)),
                ("files", .int(summary.files)), ("projections", .bool(summary.projections)), ("dedupIndex", .bool(summary.dedupIndex)),
                ("complete", .bool(summary.complete)), ("verified", .bool(summary.verified)), ("records", .int(summary.records)), ("bytes", .int(summary.bytes)),
                ("problems", .array(summary.problems.map { problem in
                    .object([("file", .string(problem.file)), ("offset", .int(problem.offset)), ("kind", .string(problem.kind.rawValue)), ("detail", .string(problem.detail))])
                })),
                ("seconds", .double((summary.seconds * 1000).rounded() / 1000)),
            ])
        }

        var tabulation: Tabulation {
            let copies = [summary.events, summary.evidence, summary.quarantine]
            return Tabulation(facts: [
                ("backup", .text(summary.destination)),
                ("complete", .text(summary.complete ? "yes" : "NO (marked BACKUP-INCOMPLETE; run the backup again)")),
                ("verified", .text(summary.verified ? "ok" : "DAMAGED")),
                ("records", .count(Int(summary.records))),
                ("segments copied", .count(copies.map(\.segmentsCopied).reduce(0, +))),
                ("segments unchanged", .count(copies.map(\.segmentsSkipped).reduce(0, +))),
                ("copied", .bytes(copies.map(\.bytesCopied).reduce(0, +))),
                ("seconds", .text(String((summary.seconds * 10).rounded() / 10))),
            ], tables: summary.verified ? [] : [Table(
                title: "problems",
                columns: [.init("file", key: "file", limit: 60, cut: .middle), .init("offset", key: "offset"), .init("kind", key: "kind"), .init("detail", key: "detail", limit: 60)],
                rows: summary.problems.map { [.text($0.file), .number($0.offset), .text($0.kind.rawValue), .text($0.detail)] })])
        }
    }

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        guard let destination = arguments.value("--to") else { throw UsageError("backup needs --to DIR: where the backup goes") }
        try context.data.requireExisting()
        // Reading the ledger as root is fine; a backup root made in the service's backup
        // directory left the next backup run as the service (the timer's) unable to update it.
        try DataDirectory.requireNotRoot(writingInto: destination, files: "a backup's logs and database",
                                         harm: "the next backup run as that user (the timer's) could not update them")
        let summary: LedgerBackup.Summary
        do {
            summary = try LedgerBackup.run(
                from: context.data.path, to: destination, projections: !arguments.flags.contains("--without-projections"),
                progress: { Output.progress("backup: " + $0) }, warning: { Output.diagnostic("backup: warning: " + $0) })
        } catch let refused as LedgerBackup.DestinationRefused {
            throw UsageError(refused.description)  // the command line names the wrong directory
        } catch {
            // Most failures past the start are the destination's (its permissions, its room),
            // which the system's words name without saying what becomes of the copy.
            let (code, message) = CommandLineTool.outcome(of: error)
            guard code == .failure, FileIO.exists(DataDirectoryLayout(destination).incompleteBackup) else { throw error }
            throw LedgerError.storage("\(message); \(destination) stays marked as a backup that did not finish: once that is put right, run the same backup again, which goes on from what it copied")
        }
        Output.endProgress()
        return CommandResult(Result(summary: summary), summary.verified && summary.complete ? .success : .corruption)
    }
}
