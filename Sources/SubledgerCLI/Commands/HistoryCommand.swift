import SubledgerLedger
import SubledgerProjections

/// `subledger history ID`: a customer's events in effective-time order.
enum HistoryCommand: Command {
    static let help = CommandHelp(
        name: "history", summary: "a customer's events, with the verbatim Apple-signed evidence",
        usage: "history ID [--from INSTANT] [--to INSTANT] [--environment E] [--raw]",
        operands: 1,
        operandName: "ID",
        options: [
            .init("--from", "INSTANT", "only events effective at or after this instant"),
            .init("--to", "INSTANT", "only events effective at or before this instant (a day: through its end)"),
            .init("--environment", "E", "only that environment's subscriptions and purchases (default: all, each event with its environment)"),
            .init("--raw", "add each event's signed payload, byte-identical to what was ingested (JSON and CSV)"),
        ],
        wide: true,
        notes: ["ID is an appAccountToken (any case), an originalTransactionId or a transactionId. Exit 1 when none has it.",
                "The table shows when, what, product, amount and the key detail; --wide or --json show everything."],
        example: "subledger history 1000000123456789 --from 2026-01-01 --json")

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        guard let id = arguments.positional.first else { throw UsageError("history needs an ID (appAccountToken, originalTransactionId or transactionId)") }
        let query = try HistoryQuery(id: id, FlagSource(arguments))
        return CommandResult(try context.data.reader().history(query))
    }
}
