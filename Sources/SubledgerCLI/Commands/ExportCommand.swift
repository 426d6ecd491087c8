#if canImport(Glibc)
import Glibc
#endif
import SubledgerCore
import SubledgerEvents
import SubledgerLedger
import SubledgerLog
import SubledgerProjections

/// `subledger export`: files for a data warehouse, written a row at a time.
enum ExportCommand: Command {
    static let help = CommandHelp(
        name: "export", summary: "transactions, events and subscriptions as files for a data warehouse, with SCHEMA.md",
        usage: "export --from DAY --to DAY --out DIR [--format csv|jsonl]",
        options: [
            .init("--from", "DAY", "first UTC day (YYYY-MM-DD), required"),
            .init("--to", "DAY", "last UTC day, included, required; subscriptions are as at its last millisecond"),
            .init("--out", "DIR", "the directory to write into (created if missing; files there of the same names are replaced)"),
            .init("--format", "csv|jsonl", "the files: CSV, RFC 4180 (default), or JSON lines"),
            .init("--json", "print the summary of the files as JSON, whatever --format the files take"),
        ],
        formats: false, formatNamesFiles: true,
        notes: ["Writes transactions, events and subscriptions, and SCHEMA.md, which describes every column.",
                "docs/audit.md has SQL for DuckDB and SQLite."],
        example: "subledger export --from 2026-01-01 --to 2026-03-31 --out ./q1")

    struct Result: CommandOutput {
        var directory: String
        var format: ExportFormat
        var from: UTCDay
        var to: UTCDay
        /// Each file written; `rows` is nil for SCHEMA.md.
        var files: [(name: String, rows: Int?, bytes: Int64)]

        func json() -> String {
            JSON.object([
                ("out", .string(directory)), ("format", .string(format.rawValue)), ("from", .string(from.description)), ("to", .string(to.description)),
                ("files", .array(files.map { .object([("name", .string($0.name)), ("rows", $0.rows.map { .int($0) } ?? .null), ("bytes", .int($0.bytes))]) })),
            ]).serialized()
        }

        var tabulation: Tabulation {
            Tabulation(
                facts: [("exported", .text("\(from) to \(to)")), ("into", .text(directory))],
                tables: [Table(columns: [.init("file", key: "name"), .init("rows", key: "rows"), .init("size", key: "bytes")],
                               rows: files.map { [.text($0.name), $0.rows.map { .count($0) } ?? .text(nil), .bytes($0.bytes)] })],
                notes: ["SCHEMA.md describes every column; docs/audit.md has SQL to load and query them."])
        }
    }

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        let parameters = FlagSource(arguments)
        let from = try parameters.exportDay("from")
        let to = try parameters.exportDay("to")
        guard from <= to else { throw UsageError("--from \(from) is after --to \(to)") }
        guard let out = arguments.value("--out") else { throw UsageError("export needs --out DIR, the directory to write into") }
        if let given = arguments.formatGiven, given == .json || given == .table {
            throw UsageError("export's --format names its files' format, csv or jsonl, not \(given.rawValue); --json prints the summary as JSON")
        }
        let format: ExportFormat = arguments.formatGiven == .jsonl ? .jsonl : .csv
        let reader = try context.data.reader()
        do { try DirectoryPath.create(out) } catch { throw ExportError(path: error.path, call: "create the directory", errno: error.errno) }
        // A link planted as --out (under /tmp, by another user) would choose where the files go.
        var status = stat()
        if lstat(out, &status) == 0, status.st_mode & S_IFMT == S_IFLNK { throw ExportError(path: out, call: "write into", errno: ELOOP) }
        let window = from.start..<UTCDay(number: to.number + 1).start
        // Every file as of one log position, what the projection held as the export began: read
        // beside a server that ingests, each file was of a later moment than the one before, and
        // a third of the events named a transaction the transactions file did not hold.
        let through = try reader.projections.summary().checkpoint.map { LogPosition(rawValue: $0.rawValue + 1) } ?? .start

        var throttle = ProgressThrottle(quietFor: 1)
        func progress<Row>(_ writer: ExportFileWriter<Row>, _ how: @autoclosure () -> String = "") {
            if throttle.due() { Output.progress("export: \(writer.fileName): \(Cell.count(writer.rows).tableText) rows\(how())") }
        }
        let transactions = try ExportFileWriter(ExportTables.transactions, format: format, directory: out)
        try reader.projections.forEachTransaction(in: window, before: through) {
            try transactions.write($0)
            progress(transactions)
        }
        try transactions.finish()

        let subscriptions = try ExportFileWriter(ExportTables.subscriptions, format: format, directory: out)
        try reader.projections.forEachSubscription(at: window.upperBound - 1, before: through) {
            try subscriptions.write(ExportedSubscription(customerId: $0, state: $1))
            progress(subscriptions)
        }
        try subscriptions.finish()

        let events = try ExportFileWriter(ExportTables.events, format: format, directory: out)
        // A ledger's log directory is made by its first append.
        if FileIO.exists(context.data.log) {
            let log = LogReader(directory: context.data.log)
            // Only for the progress line: damage the summary finds is the scan's to report.
            let end = (try? log.summary().endPosition.rawValue).map { max(1, $0) }
            try log.scan(to: through) { entry in
                progress(events, end.map { ", \(entry.position.rawValue * 100 / $0)% of the log read" } ?? "")
                guard entry.kind == Ledger.eventKind, entry.payload.count > 8 else { return true }
                // Read in place, so events outside the window cost no allocation.
                let view = try EventView(UnsafeRawBufferPointer(rebasing: entry.payload[8...]))
                if window.contains(view.effectiveAt) {
                    let recordedAt = Int64(littleEndian: entry.payload.loadUnaligned(as: Int64.self))
                    try events.write(ExportedEvent(position: entry.position, recordedAt: recordedAt, event: Event(view)))
                }
                return true
            }
        }
        try events.finish()
        Output.endProgress()

        let schema = ExportSchema(tables: [ExportTables.transactions.schema, ExportTables.events.schema, ExportTables.subscriptions.schema],
                                  format: format, window: "\(from) to \(to) (UTC days, both included)")
        let markdown = schema.markdown
        let schemaFile = try ExportFile.Partial(for: out + "/SCHEMA.md")
        try ExportFile.write(Array(markdown.utf8), to: schemaFile.fd, path: schemaFile.path)
        try schemaFile.sync()
        // Only now that every file is whole do they replace the previous export's.
        let publishing: [(name: String, publish: () throws(ExportError) -> Void)] = [
            (transactions.fileName, transactions.publish), (subscriptions.fileName, subscriptions.publish), (events.fileName, events.publish),
            ("SCHEMA.md", schemaFile.publish),
        ]
        var replaced: [String] = []
        for file in publishing {
            do { try file.publish() } catch {
                var error = error
                error.replaced = replaced
                throw error
            }
            replaced.append(file.name)
        }
        do { try DirectoryPath.sync(out) } catch { throw ExportError(path: error.path, call: "fsync", errno: error.errno) }

        return CommandResult(Result(
            directory: out, format: format, from: from, to: to,
            files: [(transactions.fileName, transactions.rows, transactions.bytes), (events.fileName, events.rows, events.bytes),
                    (subscriptions.fileName, subscriptions.rows, subscriptions.bytes), ("SCHEMA.md", nil, Int64(markdown.utf8.count))]))
    }
}

extension FlagSource {
    /// `--from`/`--to` as UTC days, with the report commands' messages; both are required.
    func exportDay(_ name: String) throws(UsageError) -> UTCDay {
        guard let day = try utcDay(name) else { throw UsageError("export needs --\(name) DAY (YYYY-MM-DD)") }
        return day
    }
}
