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
                         ("reason", .string(entry.reason)), ("detail", .string(entry.detail)), ("bytes", .int(entry.bytes.count))])
            }))]).serialized()
        }

        var tabulation: Tabulation {
            Tabulation(tables: [Table(
                title: "quarantined",
                columns: [.init("position", key: "position"), .init("source", key: "source", limit: 40, cut: .middle), .init("line", key: "line"),
                          .init("reason", key: "reason"), .init("detail", key: "detail", limit: 60), .init("size", key: "bytes")],
                rows: entries.map { [.text(String($0.position)), .text($0.source), .number(Int64($0.line)), .text($0.reason), .text($0.detail), .bytes(Int64($0.bytes.count))] })])
        }
    }

    struct Retry: CommandOutput {
        var entries: [(position: String, status: String)]
        var stillRejected: Int { entries.filter { $0.status == "rejected" }.count }

        func json() -> String {
            JSON.object([
                ("retried", .int(entries.count)), ("resolved", .int(entries.count - stillRejected)), ("stillRejected", .int(stillRejected)),
                ("entries", .array(entries.map { .object([("position", .string($0.position)), ("status", .string($0.status))]) })),
            ]).serialized()
        }

        var tabulation: Tabulation {
            Tabulation(
                facts: [("retried", .count(entries.count)), ("resolved", .count(entries.count - stillRejected)), ("still rejected", .count(stillRejected))],
                tables: entries.isEmpty ? [] : [Table(columns: [.init("position", key: "position"), .init("status", key: "status")],
                                                      rows: entries.map { [.text($0.position), .text($0.status)] })])
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
            case .appended: (String(entry.position), "appended")
            case .duplicate: (String(entry.position), "duplicate")
            case .rejected: (String(entry.position), "rejected")
            }
        })
        return CommandResult(retry, retry.stillRejected == 0 ? .success : .failure)
    }
}
