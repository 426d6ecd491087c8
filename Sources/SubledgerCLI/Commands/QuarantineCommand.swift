import SubledgerCore
import SubledgerLedger

/// `subledger quarantine list|retry`.
enum QuarantineCommand: Command {
    static let help = CommandHelp(
        name: "quarantine", summary: "rejected input kept with its reason; retry it after fixing the configuration",
        usage: "quarantine list | quarantine retry",
        operands: 1,
        notes: ["list: every rejected line with where it came from and why; a table shows the first \(tablePage), --format jsonl",
                "or csv every one in constant memory. retry: verifies each again (after `init` fixed the bundle id, environments",
                "or roots); exit 1 when some are still rejected."],
        example: "subledger quarantine list")

    /// Entries a table shows: a person reads it, and a flooded quarantine holds a million.
    static let tablePage = 1_000

    /// The first `tablePage` entries, as a table, and how many there are in all.
    struct Listing: CommandOutput {
        var entries: [QuarantineEntry]
        var total: Int

        func json() -> String {
            JSON.object([("entries", .array(entries.map(Self.json)))]).serialized()
        }

        static func json(_ entry: QuarantineEntry) -> JSON {
            .object([("position", .string(String(entry.position))), ("source", .string(entry.source)), ("line", .int(entry.line)),
                     ("reason", .string(entry.reason)), ("detail", .string(detail(entry))), ("bytes", .int(entry.size)),
                     ("truncated", .bool(entry.truncated))])
        }

        /// A line kept truncated says so: its retry cannot succeed.
        static func detail(_ entry: QuarantineEntry) -> String {
            entry.truncated ? entry.detail + " (only the first 1 MiB of the line is kept: feed the original again)" : entry.detail
        }

        static let columns: [Table.Column] = [
            .init("position", key: "position"), .init("source", key: "source", limit: 40, cut: .middle), .init("line", key: "line"),
            .init("reason", key: "reason"), .init("detail", key: "detail", limit: 60), .init("size", key: "bytes"),
            .init("truncated", key: "truncated", wide: true),
        ]

        static func cells(_ entry: QuarantineEntry) -> [Cell] {
            [.text(String(entry.position)), .text(entry.source), .number(Int64(entry.line)), .text(entry.reason), .text(detail(entry)), .bytes(Int64(entry.size)),
             .flag(entry.truncated)]
        }

        var tabulation: Tabulation {
            let more = total - entries.count
            return Tabulation(
                tables: [Table(title: "quarantined", columns: Self.columns, rows: entries.map(Self.cells))],
                notes: more > 0 ? ["\(Cell.count(more).tableText) more: --format jsonl or csv lists every one"] : [])
        }
    }

    struct Retry: CommandOutput {
        /// `reason` and `detail`: why an entry is still rejected (nil once resolved). `retried`
        /// is false for an entry kept truncated, which is answered without being fed again.
        var entries: [(position: String, status: String, reason: String?, detail: String?, retried: Bool)]
        var stillRejected: Int { entries.filter { $0.status == "rejected" }.count }
        var notRetried: Int { entries.filter { !$0.retried }.count }

        func json() -> String {
            JSON.object([
                ("retried", .int(entries.count - notRetried)), ("notRetried", .int(notRetried)), ("resolved", .int(entries.count - stillRejected)),
                ("stillRejected", .int(stillRejected)),
                ("entries", .array(entries.map { entry in
                    .object([("position", .string(entry.position)), ("status", .string(entry.status))]
                        + (entry.reason.map { [("reason", .string($0)), ("detail", .optional(entry.detail))] } ?? []))
                })),
            ]).serialized()
        }

        var tabulation: Tabulation {
            Tabulation(
                facts: [("retried", .count(entries.count - notRetried))] + (notRetried > 0 ? [("not retried (kept truncated)", .count(notRetried))] : [])
                    + [("resolved", .count(entries.count - stillRejected)), ("still rejected", .count(stillRejected))],
                tables: entries.isEmpty ? [] : [Table(
                    columns: [.init("position", key: "position"), .init("status", key: "status"), .init("reason", key: "reason"), .init("detail", key: "detail", limit: 60)],
                    rows: entries.map { [.text($0.position), .text($0.status), .text($0.reason), .text($0.detail)] })])
        }
    }

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        try context.data.requireExisting()
        let action = arguments.positional.first
        guard action == "list" || action == "retry" else { throw UsageError("quarantine takes `list` or `retry`") }
        if action == "list" { return try list(arguments.format, context) }
        try context.data.requireNotRootInAnothersLedger()
        let ledger = try Ledger(directory: context.data.path, rebuildObserver: RebuildReporter.onOpen(context.data))
        defer { ledger.close() }
        let results = try ledger.retryQuarantine(recordedAt: context.clock())
        let retry = Retry(entries: results.map { entry, outcome in
            switch outcome {
            case .appended: (String(entry.position), "appended", nil, nil, true)
            case .duplicate: (String(entry.position), "duplicate", nil, nil, true)
            case .rejected(let reason, let detail): (String(entry.position), "rejected", reason, detail, !entry.truncated)
            }
        })
        return CommandResult(retry, retry.stillRejected == 0 ? .success : .failure)
    }

    /// Each entry, the commands its detail names (`subledger init --bundle-id`) given the
    /// `--data` used, so they can be run as they stand.
    private static func forEachQuarantined(_ context: CommandContext, _ body: (QuarantineEntry) throws -> Void) throws {
        try Ledger.forEachQuarantined(directory: context.data.path) { entry in
            var entry = entry
            entry.detail = context.data.spelling(entry.detail)
            try body(entry)
        }
    }

    /// A table holds the first `tablePage` entries; the other formats are streamed, as
    /// `events`'s are (`RecordStream`).
    private static func list(_ format: OutputFormat, _ context: CommandContext) throws -> CommandResult {
        guard format != .table else {
            var listing = Listing(entries: [], total: 0)
            try forEachQuarantined(context) { entry in
                if listing.total < tablePage { listing.entries.append(entry) }
                listing.total += 1
            }
            return CommandResult(listing)
        }
        var stream = RecordStream<QuarantineEntry>(format: format, key: "entries", columns: Listing.columns, cells: Listing.cells, json: Listing.json,
                                                   data: context.data, write: context.stdout)
        try stream.stream { write in
            try forEachQuarantined(context) { write($0) }
            return []
        }
        return CommandResult(nil)
    }
}
