import SubledgerCore
import SubledgerLedger
import SubledgerProjections

/// `subledger rebuild`: folds the whole log into a fresh projection database and switches to it.
enum RebuildCommand: Command {
    static let help = CommandHelp(
        name: "rebuild", summary: "fold the log into a fresh projection database and switch to it",
        usage: "rebuild [--projection customers] [--strategy auto|in-memory|batched]",
        options: [
            .init("--projection", "NAME", "the projection to rebuild: customers (it holds customer state and every report)"),
            .init(
                "--strategy", "HOW",
                "auto (default): in memory, or in batches when that would take more memory than the process can get; in-memory: the fastest, memory in proportion to history; batched: memory bounded, several times slower"),
        ],
        example: "subledger rebuild --json")

    struct Result: DocumentOutput {
        var summary: ProjectionStore.RebuildSummary

        var document: JSON {
            JSON.object([
                ("events", .int(summary.events)), ("seconds", .double(summary.seconds)),
                ("eventsPerSecond", .double(summary.eventsPerSecond.rounded())), ("projections", .array([.string("customers")])),
                ("snapshotBytes", .int(summary.snapshotBytes)), ("foldSeconds", .double(summary.foldSeconds)),
                ("foldEventsPerSecond", .double(summary.foldEventsPerSecond.rounded())), ("strategy", .string(summary.method.name)),
            ])
        }

        var tabulation: Tabulation {
            Tabulation(facts: [
                ("rebuilt", .text("customers")), ("strategy", .text(summary.method.name)), ("events", .count(summary.events)),
                ("seconds", .text(Cell.tenths(summary.seconds))), ("events/s", .count(Int(summary.eventsPerSecond))),
                ("fold events/s", .count(Int(summary.foldEventsPerSecond))), ("snapshot", .bytes(Int64(summary.snapshotBytes))),
            ])
        }
    }

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        if let name = arguments.value("--projection"), name != "customers" {
            throw UsageError("the projection is `customers` (it holds customer state and every report)")
        }
        let strategy = try arguments.value("--strategy").map { name in
            guard let strategy = RebuildStrategy(rawValue: name) else {
                throw UsageError("--strategy is \(RebuildStrategy.allCases.map(\.rawValue).joined(separator: ", ")), not '\(name)'")
            }
            return strategy
        } ?? .automatic
        try context.data.requireExisting()
        try context.data.requireNotRootInAnothersLedger()
        let summary = try Ledger.rebuildProjections(directory: context.data.path, strategy: strategy, observer: RebuildReporter.explicit(context.data))
        return CommandResult(Result(summary: summary))
    }
}
