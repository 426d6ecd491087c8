import SubledgerCore
import SubledgerLedger
import SubledgerLog

/// `subledger verify`: every frame, footer and chain link of the event, evidence and quarantine
/// logs (every command that reads the quarantine stops at its damage, so verify must name it),
/// and every event's layout.
enum VerifyCommand: Command {
    static let help = CommandHelp(
        name: "verify", summary: "check every frame of the log, evidence and quarantine, every event's layout and the segment hash chain",
        usage: "verify [--head HASH --at POSITION]",
        options: [
            .init("--head", "HASH", "instead: check that the ledger up to --at still has this digest (from `subledger head`)"),
            .init("--at", "POSITION", "the position published with the --head digest"),
        ],
        notes: ["Exit 3 when anything is damaged (or, with --head, differs); the problems name the file, offset and events. CSV: the problems."],
        example: "subledger verify --json   # or: subledger verify --head 3f5a... --at 1048576")

    struct Result: CommandOutput {
        var segments = 0
        var records: UInt64 = 0
        var bytes: Int64 = 0
        var problems: [LogProblem] = []

        func json() -> String {
            JSON.object([
                ("ok", .bool(problems.isEmpty)),
                ("segments", .int(segments)),
                ("records", .int(records)),
                ("bytes", .int(bytes)),
                ("problems", .array(problems.map { problem in
                    .object([("file", .string(problem.file)), ("offset", .int(problem.offset)), ("kind", .string(problem.kind.rawValue)), ("detail", .string(problem.detailAndRemedy))])
                })),
            ]).serialized()
        }

        var tabulation: Tabulation {
            Tabulation(
                facts: [("verified", .text(problems.isEmpty ? "ok" : "DAMAGED")), ("segments", .count(segments)),
                        ("records", .count(Int(records))), ("size", .bytes(bytes))],
                tables: [Table(
                    title: "problems",
                    columns: [.init("file", key: "file", limit: 60, cut: .middle), .init("offset", key: "offset"), .init("kind", key: "kind"), .init("detail", key: "detail", limit: 60)],
                    rows: problems.map { [.text($0.file), .number(Int64($0.offset)), .text($0.kind.rawValue), .text($0.detailAndRemedy)] })])
        }
    }

    /// What both passes have done, said at most twice a second after a quiet first second.
    struct Progress {
        private var throttle = ProgressThrottle(quietFor: 1)
        private var frames = ""
        private var eventsRead = 0

        mutating func segments(of log: String, _ checked: Int, _ segments: Int) {
            frames = "\(log): \(checked) / \(segments) segments checked"
            say()
        }

        mutating func framesChecked() {
            frames = "every frame checked"
        }

        mutating func events(_ read: Int) {
            eventsRead = read
            say()
        }

        private mutating func say() {
            guard throttle.due() else { return }
            Output.progress("verify: " + [frames, eventsRead > 0 ? "\(Cell.count(eventsRead).tableText) events read" : ""].filter { !$0.isEmpty }.joined(separator: "; "))
        }
    }

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        try context.data.requireDirectory()
        if let hash = arguments.value("--head") { return try verifyHead(hash, arguments, context) }
        if arguments.value("--at") != nil { throw UsageError("--at goes with --head HASH; plain `verify` checks the whole ledger") }
        var result = Result()
        do { try LedgerBackup.requireComplete(context.data.path) } catch { result.problems.append(error.problem) }
        let progress = Lock(Progress())
        let logs = [("log", context.data.log), ("evidence", context.data.evidence), ("quarantine", context.data.layout.quarantine)].filter { FileIO.exists($0.1) }
        let eventLog = FileIO.exists(context.data.log) ? context.data.log : nil
        // Both passes read the whole event log, one checking frames, the other events: on two
        // cores at once (a 10 M-event ledger's took about 3 s each, one after the other).
        let (walked, events) = PosixThread.inParallel(name: "verify-events", {
            Swift.Result { () throws -> [LogVerification] in
                defer { progress.withLock { $0.framesChecked() } }
                return try logs.map { name, directory in
                    try LogReader(directory: directory).verify { checked, segments in
                        progress.withLock { $0.segments(of: name, checked, segments) }
                    }
                }
            }
        }, {
            eventLog.map { log in StoredEvents.problems(log: log) { read in progress.withLock { $0.events(read) } } } ?? []
        })
        for report in try walked.get() {
            result.segments += report.segments
            result.records += report.records
            result.bytes += report.bytes
            result.problems += report.problems
        }
        let coverage = try EvidenceCoverage.problems(directory: context.data.path)
        // In log order; a last event that does not read is met by both, and named once.
        result.problems += events + coverage.filter { !events.contains($0) }
        Output.endProgress()
        return CommandResult(result, result.problems.isEmpty ? .success : .corruption)
    }
}
