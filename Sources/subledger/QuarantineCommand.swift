import SubledgerLedger

/// `subledger quarantine list|retry`.
enum QuarantineCommand {
    static func run(_ arguments: Arguments, _ data: DataDirectory) throws -> ExitCode {
        try arguments.allow()
        try data.requireExisting()
        let ledger = try Ledger(directory: data.path)
        defer { ledger.close() }
        switch arguments.positional.first {
        case "list":
            let entries = try ledger.quarantined()
            if arguments.json {
                Output.print(JSON.object([("entries", .array(entries.map { entry in
                    .object([("position", .string(String(entry.position))), ("source", .string(entry.source)), ("line", .int(entry.line)),
                             ("reason", .string(entry.reason)), ("detail", .string(entry.detail)), ("bytes", .int(entry.bytes.count))])
                }))]).serialized())
            } else {
                Output.print(Output.table(["position", "source", "line", "reason", "detail"], entries.map { [String($0.position), $0.source, String($0.line), $0.reason, $0.detail] }))
            }
            return .success
        case "retry":
            let results = try ledger.retryQuarantine(recordedAt: WallTime.nowMillis())
            var still = 0
            let rows: [JSON] = results.map { entry, outcome in
                let status: String
                switch outcome {
                case .appended: status = "appended"
                case .duplicate: status = "duplicate"
                case .rejected: status = "rejected"; still += 1
                }
                return .object([("position", .string(String(entry.position))), ("status", .string(status))])
            }
            if arguments.json {
                Output.print(JSON.object([("retried", .int(results.count)), ("resolved", .int(results.count - still)), ("stillRejected", .int(still)), ("entries", .array(rows))]).serialized())
            } else {
                Output.print("retried \(results.count): \(results.count - still) resolved, \(still) still rejected")
            }
            return still == 0 ? .success : .failure
        default:
            throw UsageError("quarantine takes `list` or `retry`")
        }
    }
}
