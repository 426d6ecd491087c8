import SubledgerLedger
import SubledgerLog
import SubledgerProjections

/// `subledger head`: the digest of the ledger (events and evidence) up to its last event, to
/// publish and later check with `verify --head`.
enum HeadCommand: Command {
    static let help = CommandHelp(
        name: "head", summary: "a digest of the ledger (events and evidence) up to its last event, to publish",
        usage: "head [--at POSITION]",
        options: [.init("--at", "POSITION", "the digest up to the event at this position (default: the last event)")],
        notes: ["Publish the position and hash (a quarter's close, a board pack); `subledger verify --head HASH --at POSITION`",
                "checks them later: appends after the position keep it, any change before it does not. See docs/audit.md."],
        example: "subledger head --json")

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        try context.data.requireExisting()
        let position = try arguments.value("--at").map { text throws(UsageError) in
            guard let position = LogPosition(text) else { throw UsageError("--at is a log position (a decimal number), not '\(text)'") }
            return position
        }
        return CommandResult(try LedgerHead.compute(directory: context.data.path, at: position))
    }
}
