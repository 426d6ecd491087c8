#if canImport(Glibc)
import Glibc
#endif
import SubledgerLedger
import SubledgerLog
import SubledgerSimulator

let version = "0.1.0"

/// Exit codes of the contract.
enum ExitCode: Int32 {
    case success = 0
    case failure = 1
    case usage = 2
    case corruption = 3
}

let usage = """
    subledger \(version) — an event-sourced ledger for App Store subscriptions

    usage: subledger [--data DIR] COMMAND [options] [--json]

    commands:
      init        --bundle-id ID [--app-apple-id N] [--environment E]... [--root CERT]...
                  [--small-business] [--catalog FILE]: write the data directory's configuration
      ingest      [FILE|-]...: verify and append App Store notifications / signed transactions
      quarantine  list | retry: rejected input kept with its reason
      serve       [--listen HOST:PORT] [--token-file F] [--snapshot-every EVENTS]: the App Store webhook and read API
      simulate    --customers N --months M --seed S --out DIR [--start DAY] [--duplicates P]
                  [--reorder P]: a realistic signed workload with its ground truth
      customer    ID [--as-of INSTANT] [--environment E]: one customer's state
      history     ID [--from INSTANT] [--to INSTANT] [--raw]: its events, with the signed evidence
      report      revenue --from DAY --to DAY [--by day|month] [--by-product] [--refunds refund-date|original]
                  mrr [--at INSTANT] | churn --from DAY --to DAY [--by month] | cohorts --from MONTH --to MONTH
                  (every report: [--environment E] [--at-position P])
      rebuild     [--projection customers]: fold the log into a fresh snapshot and switch to it
      verify      check every frame of the log and the segment hash chain (exit 3 on damage)
      stats       sizes and counts of the data directory
      demo        [--data DIR]: simulate a small app's year, ingest it, show what the ledger knows

    global options:
      --data DIR  the data directory (default: $SUBLEDGER_DATA, else ./subledger-data)
      --json      print exactly one JSON document on stdout
      --help      this text;  --version  the version
    """

func run(_ argv: [String]) -> ExitCode {
    let arguments: Arguments
    do {
        arguments = try Arguments(argv)
    } catch {
        Output.diagnostic("subledger: \(error.message)\n\(usage)")
        return .usage
    }
    if arguments.flags.contains("--version") {
        Output.print("subledger \(version)")
        return .success
    }
    guard let command = arguments.command, !arguments.flags.contains("--help") else {
        Output.print(usage)
        return arguments.command == nil && !arguments.flags.contains("--help") ? .usage : .success
    }
    let data = DataDirectory(arguments.dataDirectory)
    do {
        switch command {
        case "init": return try InitCommand.run(arguments, data)
        case "ingest": return try IngestCommand.run(arguments, data)
        case "quarantine": return try QuarantineCommand.run(arguments, data)
        case "serve": return try ServeCommand.run(arguments, data)
        case "simulate": return try SimulateCommand.run(arguments)
        case "customer": return try ReadCommands.customer(arguments, data)
        case "history": return try ReadCommands.history(arguments, data)
        case "report": return try ReadCommands.report(arguments, data)
        case "rebuild": return try ReadCommands.rebuild(arguments, data)
        case "verify": return try VerifyCommand.run(arguments, data)
        case "stats": return try StatsCommand.run(arguments, data)
        case "demo": return try DemoCommand.run(arguments)
        default:
            Output.diagnostic("subledger: unknown command '\(command)'\n\(usage)")
            return .usage
        }
    } catch let error as UsageError {
        Output.diagnostic("subledger \(command): \(error.message)")
        return .usage
    } catch let error as SimulatorError {
        Output.diagnostic("subledger \(command): \(error)")
        return .failure
    } catch let error as LedgerError {
        Output.diagnostic("subledger \(command): \(error)")
        return .failure
    } catch let error as LogError {
        Output.diagnostic("subledger \(command): \(error)")
        if case .corrupted = error { return .corruption }
        return .failure
    } catch {
        Output.diagnostic("subledger \(command): \(error)")
        return .failure
    }
}

exit(run(Array(CommandLine.arguments.dropFirst())).rawValue)
