import SubledgerLedger
import SubledgerLog
import SubledgerProjections
import SubledgerSimulator

/// The `subledger` command: parses the command line, runs one command and renders its result.
/// It returns what goes to stdout instead of printing it, so tests run commands in process;
/// diagnostics and progress go to stderr as they happen.
public struct CommandLineTool: Sendable {
    public static let version = "0.1.0"

    static var commands: [(name: String, command: any Command.Type)] {
        [
        ("init", InitCommand.self), ("ingest", IngestCommand.self), ("quarantine", QuarantineCommand.self),
        ("serve", ServeCommand.self), ("simulate", SimulateCommand.self), ("customer", CustomerCommand.self),
        ("history", HistoryCommand.self), ("report", ReportCommand.self), ("rebuild", RebuildCommand.self),
        ("verify", VerifyCommand.self), ("stats", StatsCommand.self), ("demo", DemoCommand.self),
        ("backup", BackupCommand.self), ("head", HeadCommand.self), ("export", ExportCommand.self), ("events", EventsCommand.self),
        ("appstore", AppstoreCommand.self),
        ]
    }

    /// Epoch milliseconds: the wall clock unless a test fixes it.
    public var clock: @Sendable () -> Int64
    /// Where streaming commands write as they go; nil: into the returned output (tests).
    public var stdout: (@Sendable (String) -> Void)?

    public init(clock: @escaping @Sendable () -> Int64 = WallTime.nowMillis, stdout: (@Sendable (String) -> Void)? = nil) {
        self.clock = clock
        self.stdout = stdout
    }

    /// Runs `argv` (without the program name).
    public func run(_ argv: [String]) -> (exitCode: ExitCode, output: String) {
        let arguments: Arguments
        do {
            arguments = try Arguments(argv, valued: Self.valuedOptions, known: Self.knownOptions)
        } catch {
            // A command's own page says more about its options than the list of commands.
            // The page of the one of several it names (`report revenue`), where it names one.
            let page = argv.indices.lazy.compactMap { index -> String? in
                guard let command = Self.commands.first(where: { $0.name == argv[index] })?.command else { return nil }
                let full = argv[index...].prefix(2).joined(separator: " ")
                return command.allHelp.contains { $0.name == full } ? full : argv[index]
            }.first
            Output.diagnostic("subledger: \(error.message)\n" + (page.map { "see `subledger \($0) --help`" } ?? Self.usage))
            return (.usage, "")
        }
        // With the projection database's schema: two builds of one version may differ in it, and a
        // database of another schema is rebuilt on open (an operator upgrading could not tell).
        if arguments.flags.contains("--version") {
            return (.success, "subledger \(Self.version) (projection database schema \(ProjectionStore.schemaVersion))\n")
        }
        guard let name = arguments.command else {
            if arguments.help { return (.success, Self.usage) }
            Output.diagnostic(Self.usage)
            return (.usage, "")
        }
        if name == "help" { return help(for: arguments.positional) }
        guard let command = Self.commands.first(where: { $0.name == name })?.command else {
            Self.unknownCommand(name)
            return (.usage, "")
        }
        if arguments.help { return help(for: [name] + arguments.positional) }
        let streamed = StreamedText()
        let context = CommandContext(data: DataDirectory(arguments.dataDirectory), clock: clock, stdout: stdout ?? streamed.append)
        do {
            let result = try command.run(arguments, context)
            guard let output = result.output else { return (result.exitCode, streamed.text) }
            // `export`'s --format names its files: its summary is a table unless --json asks.
            let format = command.help.formatNamesFiles ? (arguments.json ? .json : .table) : arguments.format
            return (result.exitCode, streamed.text + (try Emitter(format: format, wide: arguments.wide, data: context.data).render(output)))
        } catch {
            // `report revenue`, `appstore recover`: the command as the help pages name it.
            let subcommand = arguments.positional.first.map { name + " " + $0 }
            let label = subcommand.flatMap { full in command.allHelp.contains { $0.name == full } ? full : nil } ?? name
            return (Self.report(error, command: label, data: context.data), streamed.text)
        }
    }

    /// The options that take a value, from every command's help.
    static var valuedOptions: Set<String> {
        Set(commands.flatMap { $0.command.allHelp.flatMap { $0.options.filter { $0.value != nil }.map(\.name) } })
    }

    /// Every option of every command.
    static var knownOptions: Set<String> {
        Set(commands.flatMap { $0.command.allHelp.flatMap { $0.options.map(\.name) } })
    }

    /// Whether `argv` (without the program name) runs a command that folds the whole log in
    /// memory, for which the executable asks for huge-page malloc (`HugePageMalloc`).
    public static func foldsWholeLog(_ argv: [String]) -> Bool {
        guard let arguments = try? Arguments(argv, valued: valuedOptions, known: knownOptions) else { return false }
        return arguments.command == RebuildCommand.help.name && !arguments.help
    }

    /// `subledger help [COMMAND [REPORT]]`, `subledger COMMAND --help`.
    func help(for words: [String]) -> (exitCode: ExitCode, output: String) {
        guard let name = words.first else { return (.success, Self.usage) }
        guard let command = Self.commands.first(where: { $0.name == name })?.command else {
            Self.unknownCommand(name)
            return (.usage, "")
        }
        let full = words.prefix(2).joined(separator: " ")
        if let page = command.allHelp.first(where: { $0.name == full }) { return (.success, page.text) }
        // A command of several (`report revenue`) names one; another word there is a typo.
        let subcommands = command.allHelp.dropFirst().compactMap { $0.name.split(separator: " ").last.map(String.init) }
        if words.count > 1, !subcommands.isEmpty {
            Output.diagnostic("subledger: \(name) has no \(words[1])\(Suggestion.hint(for: words[1], among: subcommands)); it takes \(subcommands.joined(separator: ", "))")
            return (.usage, "")
        }
        return (.success, command.help.text)
    }

    /// Names a command that does not exist, with the nearest one and the list.
    static func unknownCommand(_ name: String) {
        Output.diagnostic("subledger: unknown command '\(name)'\(Suggestion.hint(for: name, among: commands.map(\.name)))\n\(usage)")
    }

    /// Says what went wrong on stderr and picks the contract's exit code.
    static func report(_ error: any Error, command: String, data: DataDirectory) -> ExitCode {
        let (code, message) = outcome(of: error)
        Output.diagnostic("subledger \(command): \(data.spelling(message))")
        return code
    }

    /// The contract's exit code for `error`, and what to say of it.
    static func outcome(of error: any Error) -> (ExitCode, String) {
        switch error {
        case let error as UsageError:
            return (.usage, error.message)
        case let error as QueryError:
            return (error.kind == .notFound ? .failure : .usage, error.detail)
        case is LedgerBackup.Incomplete, is LedgerBackup.DamagedSource:
            return (.corruption, "\(error)")
        case let error as LogError:
            let error = error.verified()
            if case .corrupted = error { return (.corruption, "\(error)") }
            return (.failure, "\(error)")
        case LedgerError.notInitialized(let message):
            // Like a missing data directory: the command line names a directory to set up first.
            return (.usage, message)
        case let error as ProjectionError:
            if case .logCorrupted(let problem) = error.kind { return outcome(of: LogError.corrupted(problem)) }
            // A record whose frame checks out and whose event does not read: `verify` names it.
            if case .undecodableEvent = error.kind { return (.corruption, "\(error)") }
            return (.failure, "\(error)")
        default:
            return (.failure, "\(error)")
        }
    }

    static var usage: String {
        let width = commands.map(\.name.count).max()!
        let lines = commands.map { "  " + $0.name + String(repeating: " ", count: width - $0.name.count) + "  " + $0.command.help.summary }
        return """
            subledger \(version) — an event-sourced ledger for App Store subscriptions

            usage: subledger [--data DIR] COMMAND [options] [--format table|csv|json|jsonl | --json]

            commands:
            \(lines.joined(separator: "\n"))

            global options:
              --data DIR        the data directory (default: $SUBLEDGER_DATA, else ./subledger-data)
              --format FORMAT   table (default), csv, json or jsonl; --json is --format json
              --help            this text; `subledger COMMAND --help` (or `subledger help COMMAND`): that command's own
              --version         the version, and the projection database schema it reads and writes

            """
    }
}

extension Command {
    static var allHelp: [CommandHelp] { [help] }
}
