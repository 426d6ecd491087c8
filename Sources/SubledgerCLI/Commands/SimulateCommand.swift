import SubledgerCore
import SubledgerLedger
import SubledgerProjections
import SubledgerSimulator

/// `subledger simulate`: a realistic signed workload plus the simulation's own ground truth.
enum SimulateCommand: Command {
    static let help = CommandHelp(
        name: "simulate", summary: "a realistic signed workload with the ground truth of the simulation's own model",
        usage: "simulate --out DIR [--customers N] [--months M] [--seed S] [--start DAY] [--duplicates P] [--reorder P] [--withhold P] [--ledger-start DAY]",
        options: [
            .init("--out", "DIR", "where to write notifications.jsonl, root.cer, config.json and expected.json, required"),
            .init("--customers", "N", "customers (default: 300)"),
            .init("--months", "M", "months simulated (default: 6)"),
            .init("--seed", "S", "random seed: the same seed gives the same workload (default: 1)"),
            .init("--start", "DAY", "first day (YYYY-MM-DD; default: 2026-01-01)"),
            .init("--duplicates", "P", "probability a notification is delivered twice (0 to 1; default: 0)"),
            .init("--reorder", "P", "probability a notification arrives late, out of order (0 to 1; default: 0)"),
            .init("--withhold", "P", "probability a notification is never delivered, only in history.jsonl (for `appstore recover`)"),
            .init("--ledger-start", "DAY", "notifications before DAY are not delivered; backfill-ids.txt names their customers (for `appstore backfill`)"),
        ],
        notes: ["Every notification is signed like the App Store's, by a test root written to root.cer: trust it with",
                "`subledger init --root DIR/root.cer`."],
        example: "subledger simulate --customers 300 --months 6 --seed 11 --out /tmp/sim --duplicates 0.05 --reorder 0.1")

    struct Result: CommandOutput {
        var out: String
        var configuration: Simulator.Configuration
        var summary: Simulator.Summary
        /// Whether the simulated time ends after now.
        var endsInTheFuture = false

        func json() -> String {
            JSON.object([
                ("out", .string(out)), ("customers", .int(summary.customers)), ("subscriptions", .int(summary.subscriptions)),
                ("notifications", .int(summary.notifications)), ("lines", .int(summary.lines)),
                ("duplicateLines", .int(summary.duplicateLines)), ("delayedLines", .int(summary.delayedLines)),
                ("files", .array(files.map { .string($0) })), ("runsPastToday", .bool(endsInTheFuture)),
            ]).serialized()
        }

        var files: [String] {
            [summary.notificationsPath, summary.rootCertificatePath, summary.configPath, summary.expectedPath] + [summary.historyPath, summary.backfillIdsPath].compactMap { $0 }
        }

        var tabulation: Tabulation {
            Tabulation(
                facts: [
                    ("customers", .count(summary.customers)), ("months", .count(configuration.months)), ("seed", .number(Int64(configuration.seed))),
                    ("subscriptions", .count(summary.subscriptions)), ("notifications", .count(summary.notifications)),
                    ("lines", .count(summary.lines)), ("duplicated", .count(summary.duplicateLines)), ("late", .count(summary.delayedLines)),
                ],
                tables: [Table(title: "files", columns: [.init("file", key: "file")], rows: files.map { [.text($0)] })],
                notes: ["expected.json is the ground truth from the simulation's own model"] + (endsInTheFuture
                    ? ["the simulation runs past today to \(UTCInstant.iso8601(summary.end).prefix(10)): churn and cohorts leave out periods not yet over (churn counts through yesterday), and `customer` answers as of now unless given --as-of"]
                    : ["the simulation ended at \(UTCInstant.iso8601(summary.end).prefix(10)), before today: the subscriptions it left renewing lapse after it, as the ledger sees them now, so compare reports up to its last day (--to \(UTCInstant.iso8601(summary.end - UTCInstant.millisecondsPerDay).prefix(10))) and `customer` --as-of \(UTCInstant.iso8601(summary.end))"]))
        }
    }

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        guard let out = arguments.value("--out") else { throw UsageError("simulate needs --out DIR") }
        // Its config.json would replace the ledger's, which then opens no more.
        let layout = DataDirectoryLayout(out)
        if (try? LedgerConfiguration.load(from: out)) != nil || FileIO.exists(layout.log) {
            throw UsageError("\(out) is a ledger's data directory, and simulate writes a config.json of its own; give --out a directory of its own")
        }
        let configuration = try Self.configuration(arguments)
        let summary = try simulate(configuration, to: out)
        return CommandResult(Result(out: out, configuration: configuration, summary: summary, endsInTheFuture: summary.end > context.clock()))
    }

    static func configuration(_ arguments: Arguments) throws(UsageError) -> Simulator.Configuration {
        var configuration = Simulator.Configuration()
        func integer(_ name: String) throws(UsageError) -> Int? {
            guard let text = arguments.value(name) else { return nil }
            guard let value = Int(text), value > 0 else { throw UsageError("\(name) takes a positive whole number, not '\(text)'") }
            return value
        }
        func probability(_ name: String) throws(UsageError) -> Double? {
            guard let text = arguments.value(name) else { return nil }
            guard let value = Double(text), (0...1).contains(value) else { throw UsageError("\(name) takes a probability from 0 to 1, not '\(text)'") }
            return value
        }
        if let value = try integer("--customers") { configuration.customers = value }
        if let value = try integer("--months") { configuration.months = value }
        if let value = try integer("--seed") { configuration.seed = UInt64(value) }
        let flags = FlagSource(arguments)
        if let day = try flags.utcDay("start") { configuration.start = day.description }
        if let value = try probability("--duplicates") { configuration.duplicates = value }
        if let value = try probability("--reorder") { configuration.reorder = value }
        if let value = try probability("--withhold") { configuration.withhold = value }
        if let day = try flags.utcDay("ledgerStart") { configuration.ledgerStart = day.description }
        return configuration
    }

    /// Runs the simulator with a progress line on stderr.
    static func simulate(_ configuration: Simulator.Configuration, to directory: String) throws -> Simulator.Summary {
        let simulator: Simulator
        do { simulator = try Simulator(configuration: configuration) } catch { throw UsageError(error.message) }
        let summary = try simulator.run(to: directory) { progress in
            switch progress.phase {
            // Notifications are simulated first and signed while they are written.
            case .simulating: Output.progress("simulate: \(progress.customersDone) / \(progress.customers) customers, \(progress.notifications) notifications")
            case .writing: Output.progress("simulate: \(progress.notificationsSigned) / \(progress.notifications) notifications signed, \(progress.linesWritten) lines written")
            }
        }
        Output.endProgress()
        return summary
    }
}
