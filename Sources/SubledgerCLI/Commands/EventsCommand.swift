import SubledgerCore
import SubledgerLedger
import SubledgerProjections

/// `subledger events`: the events matching every filter, across all customers, in log order.
enum EventsCommand: Command {
    static let help = CommandHelp(
        name: "events", summary: "events across all customers, filtered, in log order (audit queries, feeds)",
        usage: "events [--type T]... [--notification-type N]... [--product P]... [--customer ID] [--environment E] [--from INSTANT] [--to INSTANT] [--time effective|recorded] [--after POSITION] [--limit N] [--raw] [--reverify]",
        options: [
            .init("--type", "T", "an event type (refunded, renewed, subscriptionStarted, ...); repeat for any of several", repeatable: true),
            .init("--notification-type", "N", "Apple's notificationType (REFUND, DID_RENEW, ...); repeat for any of several", repeatable: true),
            .init("--product", "P", "a productId; repeat for any of several", repeatable: true),
            .init("--customer", "ID", "one customer's events: appAccountToken, originalTransactionId or transactionId"),
            .init("--environment", "E", "Production, Sandbox, Xcode or LocalTesting"),
            .init("--from", "INSTANT", "only events at or after this instant (see --time)"),
            .init("--to", "INSTANT", "only events before this instant (half-open); a day (2026-09-30) is included whole"),
            .init("--time", "AXIS", "effective (default: the signed time) or recorded (when the ledger stored it)"),
            .init("--after", "POSITION", "only events after this log position: a previous page's next"),
            .init("--limit", "N", "at most N events; JSON then gives next for --after"),
            .init("--raw", "add each event's verbatim signed evidence"),
            .init("--reverify", "verify each event's stored evidence again now, against the configured roots, and check the event is the one it makes"),
        ],
        wide: true,
        notes: ["Filters combine; values of one filter are alternatives. --format jsonl and csv stream one event a line, and --json",
                "its one document an event at a time, in constant memory. The table shows \(tablePage) events unless --limit says otherwise",
                "(at most \(tableLimit)), then where the next page starts. --reverify adds evidence: verified | failed: REASON; exit 3 if any failed (stderr names them)."],
        example: "subledger events --type refunded --from 2026-07-01 --to 2026-09-30 --raw --format jsonl")

    /// The events a table shows without `--limit`, as `GET /v1/events` answers: a table is read
    /// by a person, and is aligned only once it is whole (every event of a 955 k-event ledger
    /// took 29 s and 2.8 GB before the first line).
    static let tablePage = 1_000

    /// The most events a table holds: it keeps them all (about 3 KB each) until it can align
    /// them, so `--limit 1000000` took 2.85 GB and 18 s without a line at 955 k events, and would
    /// run a 10 M-event ledger's host out of memory. More go through a format that streams.
    static let tableLimit = 100_000

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        guard arguments.positional.isEmpty else { throw UsageError("events takes no ID; use --customer ID") }
        try arguments.allow(help)
        var query = try EventQuery(FlagSource(arguments))
        let reader = try context.data.reader()
        var failures = 0
        let exitCode = { failures == 0 ? ExitCode.success : .corruption }
        func note(_ item: EventItem) {
            guard case .failed(let reason, let detail) = item.evidence else { return }
            failures += 1
            Output.diagnostic(context.data.spelling("subledger events: the evidence of event \(item.position) (\(item.event.type.name)) failed verification: \(reason): \(detail)"))
        }
        switch arguments.format {
        case .jsonl, .csv, .json:
            // A stream's columns are fixed before its first event, so any may be a refund.
            let columns = EventItem.columns(raw: query.raw, reverify: query.reverify, refunded: .last)
            var stream = RecordStream<EventItem>(format: arguments.format, key: "events", columns: columns, cells: { $0.cells(columns) }, json: \.json,
                                                 data: context.data, write: context.stdout)
            // Every event of a 10 M-event ledger streams for minutes: say how far it has come.
            var throttle = ProgressThrottle(quietFor: 1)
            var written = 0
            try stream.stream { write in
                let next = try reader.events(query) { item in
                    note(item)
                    write(item)
                    written += 1
                    if throttle.due() { Output.progress("events: \(Cell.count(written).tableText) written, through log position \(item.position)") }
                }
                Output.endProgress()
                return [("next", JSON.optional(next?.description))]
            }
            return CommandResult(nil, exitCode())
        case .table:
            if query.limit == nil { query.limit = tablePage }
            if let limit = query.limit, limit > tableLimit {
                throw UsageError("a table of events holds at most \(Cell.count(tableLimit).tableText) (it is aligned only once whole, about 3 KB an event in memory), not --limit \(limit); --format jsonl or csv streams any number in constant memory, or page the table with --after")
            }
            let page = try reader.events(query)
            page.events.forEach(note)
            return CommandResult(page, exitCode())
        }
    }
}
