import SubledgerCore
import SubledgerLedger
import SubledgerProjections

/// `subledger rebuild`: folds the whole log into a fresh projection database and switches to it.
enum RebuildCommand: Command {
    static let help = CommandHelp(
        name: "rebuild", summary: "fold the log into a fresh projection database and switch to it",
        usage: "rebuild [--projection customers]",
        options: [.init("--projection", "NAME", "the projection to rebuild: customers (it holds customer state and every report)")],
        example: "subledger rebuild --json")

    struct Result: CommandOutput {
        var summary: ProjectionStore.RebuildSummary

        func json() -> String {
            JSON.object([
                ("events", .int(summary.events)), ("seconds", .double(summary.seconds)),
                ("eventsPerSecond", .double(summary.eventsPerSecond.rounded())), ("projections", .array([.string("customers")])),
                ("snapshotBytes", .int(summary.snapshotBytes)), ("foldSeconds", .double(summary.foldSeconds)),
                ("foldEventsPerSecond", .double(summary.foldEventsPerSecond.rounded())),
            ]).serialized()
        }

        var tabulation: Tabulation {
            Tabulation(facts: [
                ("rebuilt", .text("customers")), ("events", .count(summary.events)),
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
        try context.data.requireExisting()
        let summary = try Ledger.rebuildProjections(directory: context.data.path, observer: RebuildReporter.explicit)
        return CommandResult(Result(summary: summary))
    }
}
