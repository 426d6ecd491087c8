/// One `subledger` command: its help (which also says which options it takes) and what it
/// does. It returns its result instead of printing it, so one emitter prints every format.
protocol Command {
    static var help: CommandHelp { get }
    /// Every help page the command has (`report` has one per report).
    static var allHelp: [CommandHelp] { get }
    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult
}

/// What a command runs with besides its arguments.
struct CommandContext: Sendable {
    var data: DataDirectory
    /// Epoch milliseconds: what "now" means (fixed in tests).
    var clock: @Sendable () -> Int64
    /// Writes to stdout at once: for commands that stream records instead of returning them.
    var stdout: @Sendable (String) -> Void
}

/// A command's result and exit code; no output for commands that print nothing (`serve`).
struct CommandResult {
    var output: (any CommandOutput)?
    var exitCode: ExitCode

    init(_ output: (any CommandOutput)?, _ exitCode: ExitCode = .success) {
        self.output = output
        self.exitCode = exitCode
    }
}

/// Exit codes of the contract.
public enum ExitCode: Int32, Sendable {
    case success = 0
    /// The command ran but something failed (a line rejected, a customer not found).
    case failure = 1
    case usage = 2
    case corruption = 3
    /// `serve` only, beyond the contract's four: its data directory was moved or replaced while
    /// it ran (a restore with the server running). Not restarted by the unit
    /// (`RestartPreventExitStatus=`): a restart in the middle of the restore would open, or
    /// create, a directory the restore is still writing.
    case directoryMoved = 4
}
