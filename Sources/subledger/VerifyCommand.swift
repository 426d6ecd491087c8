import SubledgerLedger
import SubledgerLog

/// `subledger verify`: every frame, footer and chain link of the log and the evidence log.
enum VerifyCommand {
    static func run(_ arguments: Arguments, _ data: DataDirectory) throws -> ExitCode {
        try arguments.allow()
        try data.requireExisting()
        var segments = 0
        var records: UInt64 = 0
        var bytes: Int64 = 0
        var problems: [LogProblem] = []
        for directory in [data.log, data.evidence] where DataDirectory(directory).exists {
            let report = try LogReader(directory: directory).verify()
            segments += report.segments
            records += report.records
            bytes += report.bytes
            problems += report.problems
        }
        if arguments.json {
            Output.print(JSON.object([
                ("ok", .bool(problems.isEmpty)),
                ("segments", .int(segments)),
                ("records", .int(records)),
                ("bytes", .int(bytes)),
                ("problems", .array(problems.map { problem in
                    .object([("file", .string(problem.file)), ("offset", .int(problem.offset)), ("kind", .string(problem.kind.rawValue)), ("detail", .string(problem.detail))])
                })),
            ]).serialized())
        } else {
            Output.print("\(problems.isEmpty ? "ok" : "DAMAGED"): \(segments) segments, \(records) records, \(bytes) bytes")
            if !problems.isEmpty {
                Output.print(Output.table(["file", "offset", "kind", "detail"], problems.map { [$0.file, String($0.offset), $0.kind.rawValue, $0.detail] }))
            }
        }
        return problems.isEmpty ? .success : .corruption
    }
}
