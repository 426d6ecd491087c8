import SubledgerCore
import SubledgerLedger

/// `subledger quarantine list|retry`.
enum QuarantineCommand: Command {
    static let help = CommandHelp(
        name: "quarantine", summary: "rejected input kept with its reason; retry it after fixing the configuration",
        usage: "quarantine list | quarantine retry",
        operands: 1,
        notes: ["list: every rejected line with where it came from and why. retry: verifies each again (after `init`",
                "fixed the bundle id, environments or roots); exit 1 when some are still rejected."],
        example: "subledger quarantine list")

    struct Listing: CommandOutput {
        var entries: [QuarantineEntry]

        func json() -> String {
            JSON.object([("entries", .array(entries.map { entry in
                .object([("position", .string(String(entry.position))), ("source", .string(entry.source)), ("line", .int(entry.line)),
                         ("reason", .string(entry.reason)), ("detail", .string(Self.detail(entry))), ("bytes", .int(entry.size)),
                         ("truncated", .bool(entry.truncated))])
            }))]).serialized()
        }

        /// A line kept truncated says so: its retry cannot succeed.
        static func detail(_ entry: QuarantineEntry) -> String {
            entry.truncated ? entry.detail + " (only the first 1 MiB of the line is kept: feed the original again)" : entry.detail
        }

        var tabulation: Tabulation {
            Tabulation(tables: [Table(
                title: "quarantined",
                columns: [.init("position", key: "position"), .init("source", key: "source", limit: 40, cut: .middle), .init("line", key: "line"),
                          .init("reason", key: "reason"), .init("detail", key: "detail", limit: 60), .init("size", key: "bytes")],
                rows: entries.map { [.text(String($0.position)), .text($0.source), .number(Int64($0.line)), .text($0.reason), .text(Self.detail($0)), .bytes(Int64($0.size))] })])
        }
    }

    struct Retry: CommandOutput {
        /// `reason` and `detail`: why an entry is still rejected (nil once resolved).
        var entries: [(position: String, status: String, reason: String?, detail: String?)]
        var stillRejected: Int { entries.filter { $0.status == "rejected" }.count }

        func json() -> String {
            JSON.object([
                ("retried", .int(entries.count)), ("resolved", .int(entries.count - stillRejected)), ("stillRejected", .int(stillRejected)),
                ("entries", .array(entries.map { entry in
                    .object([("position", .string(entry.position)), ("status", .string(entry.status))]
                        + (entry.reason.map { [("reason", .string($0)), ("detail", .optional(entry.detail))] } ?? []))
                })),
            ]).serialized()
        }

        var tabulation: Tabulation {
            Tabulation(
                facts: [("retried", .count(entries.count)), ("resolved", .count(entries.count - stillRejected)), ("still rejected", .count(stillRejected))],
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
        if action == "list" { return CommandResult(Listing(entries: try Ledger.quarantined(directory: context.data.path))) }
        let ledger = try Ledger(directory: context.data.path, rebuildObserver: RebuildReporter.onOpen())
        defer { ledger.close() }
        let results = try ledger.retryQuarantine(recordedAt: context.clock())
        let retry = Retry(entries: results.map { entry, outcome in
            switch outcome {
            case .appended: (String(entry.position), "appended", nil, nil)
            case .duplicate: (String(entry.position), "duplicate", nil, nil)
            case .rejected(let reason, let detail): (String(entry.position), "rejected", reason, detail)
            }
        })
        return CommandResult(retry, retry.stillRejected == 0 ? .success : .failure)
    }
}
