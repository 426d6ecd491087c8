import SubledgerLedger
import SubledgerProjections

/// `subledger customer ID`: one customer's state at an instant.
enum CustomerCommand: Command {
    static let help = CommandHelp(
        name: "customer", summary: "one customer's subscriptions and purchases at an instant",
        usage: "customer ID [--as-of INSTANT] [--environment E] [--at-position P] [--evidence]",
        operands: 1,
        operandName: "ID",
        options: [
            .init("--as-of", "INSTANT", "the state then (2026-03-01, its first instant, or 2026-03-01T10:00:00Z; default: now)"),
            .init("--environment", "E", "only that environment's subscriptions (default: all, each with its environment; the entitlements are Production's when it has any)"),
            .init("--at-position", "P", "the state as the ledger told it when its log ended at P: an event's position (it and later ones left out) or head's logEnd"),
            .init("--evidence", "name where each subscription's evidence ends: lastEventPosition, and lastTransactionEventPosition, the latest event carrying the transaction it is in; history --raw gives their signed messages"),
        ],
        wide: true,
        notes: ["ID is an appAccountToken (any case), an originalTransactionId or a transactionId.",
                "Exit 1 when no customer has that id. CSV: the subscriptions, amounts as decimals in their currency."],
        example: "subledger customer 1000000123456789 --as-of 2026-03-01")

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        guard let id = arguments.positional.first else { throw UsageError("customer needs an ID (appAccountToken, originalTransactionId or transactionId)") }
        let query = try CustomerQuery(id: id, FlagSource(arguments), now: context.clock())
        return CommandResult(try context.data.reader().customer(query))
    }
}
