#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import SubledgerCore
import SubledgerHTTP
import SubledgerLedger
import SubledgerServer

/// `subledger ingest [FILE|-]...`: verifies and appends every line; rejected lines are
/// quarantined and make the exit code 1.
enum IngestCommand: Command {
    static let help = CommandHelp(
        name: "ingest", summary: "verify and append App Store notifications and signed transactions",
        usage: "ingest [FILE|-]...",
        operands: nil,
        notes: ["Each line is a webhook body {\"signedPayload\": \"...\"}, a bare notification JWS or a signed transaction",
                "(backfill); FILE - or none reads stdin. Every JWS is verified before it is stored; ingesting a line",
                "again is a no-op. Exit 1 when a line was rejected (it is quarantined, the rest appended).",
                "CSV: the rejections."],
        example: "subledger ingest notifications.jsonl --json")

    /// Lines handed to the ledger at once (it pipelines verification within them).
    static let batchSize = 4096
    /// The first batches are smaller, each four times the last: until the first is read, no core
    /// has anything to verify (reading 4,096 notifications took ~150 ms), and each is verified
    /// in about the time the next takes to read.
    static let firstBatchSize = 256

    struct Rejection {
        var line: Int, source: String, reason: String, detail: String
    }

    struct Result: CommandOutput {
        var read = 0, appended = 0, duplicates = 0
        var rejections: [Rejection] = []
        var first: String?, last: String?
        /// Why the run stopped after storing some lines (a full disk): what it stored stays.
        var stoppedBy: String?
        /// Lines read that the stop left without an outcome: `read` less those appended, found
        /// duplicates or rejected; some of them may be stored.
        var inFlight: Int { read - appended - duplicates - rejections.count }

        func json() -> String {
            JSON.object([
                ("read", .int(read)), ("appended", .int(appended)), ("duplicates", .int(duplicates)), ("rejected", .int(rejections.count)),
                ("rejections", .array(rejections.map { .object([("line", .int($0.line)), ("source", .string($0.source)), ("reason", .string($0.reason)), ("detail", .string($0.detail))]) })),
                ("firstPosition", .optional(first)), ("lastPosition", .optional(last)),
            ] + (stoppedBy.map { [("inFlight", .int(inFlight)), ("error", .string($0))] } ?? [])).serialized()
        }

        var tabulation: Tabulation {
            Tabulation(
                facts: [("read", .count(read)), ("appended", .count(appended)), ("duplicates", .count(duplicates)), ("rejected", .count(rejections.count))]
                    + (stoppedBy.map { [("in flight", .count(inFlight)), ("stopped by", .text($0))] } ?? []),
                // Always the table, empty or not: CSV is the rejections, one layout whatever happened.
                tables: [Table(
                    title: "rejections",
                    columns: [.init("line", key: "line"), .init("source", key: "source", limit: 40, cut: .middle), .init("reason", key: "reason"), .init("detail", key: "detail", limit: 72)],
                    rows: rejections.map { [.number(Int64($0.line)), .text($0.source), .text($0.reason), .text($0.detail)] })],
                notes: rejections.isEmpty ? [] : ["rejected lines are quarantined: `subledger quarantine list`, then `subledger quarantine retry` after fixing the configuration"])
        }
    }

    static func run(_ arguments: Arguments, _ context: CommandContext) throws -> CommandResult {
        try arguments.allow(help)
        try context.data.requireExisting()
        try context.data.requireNotRootInAnothersLedger()
        let files = arguments.positional.isEmpty ? ["-"] : arguments.positional
        try requireReadable(files)
        let ledger = try Ledger(directory: context.data.path, rebuildObserver: RebuildReporter.onOpen(context.data))
        defer { ledger.close() }
        // Folding into a large ledger reads its databases through their maps, as the server does.
        let mapped = MappedMemoryLimit(bytes: MappedMemoryLimit.defaultMegabytes << 20, metrics: Metrics(),
                                       release: { try ledger.releaseMappedPages() }, log: { Output.diagnostic("ingest: " + $0) })
        mapped.start()
        defer { mapped.stop() }
        var result = try ingest(files: files, into: ledger, recordedAt: context.clock)
        // The commands a rejection names (`subledger init --bundle-id`) run as they stand.
        for index in result.rejections.indices { result.rejections[index].detail = context.data.spelling(result.rejections[index].detail) }
        if let error = result.stoppedBy { Output.diagnostic("subledger ingest: \(error)") }
        return CommandResult(result, result.rejections.isEmpty && result.stoppedBy == nil ? .success : .failure)
    }

    /// A read of an input failed partway: what came before is stored, the rest was not read.
    struct InputUnreadable: Error, CustomStringConvertible {
        var source: String
        var line: Int
        var errno: Int32

        var description: String {
            "reading \(source == "-" ? "standard input" : source) failed at line \(line): \(String(cString: strerror(errno))) (errno \(errno)); the lines after it were not read"
        }
    }

    /// Every input is checked before anything is ingested: a typo in the last of several files
    /// must not leave the ones before it half done behind a usage error.
    static func requireReadable(_ files: [String]) throws(UsageError) {
        // A second `-` would read a standard input the first has read to its end and closed.
        if files.count(where: { $0 == "-" }) > 1 {
            throw UsageError("- (standard input) is given more than once; it can be read once; nothing was ingested")
        }
        for file in files where file != "-" {
            var info = stat()
            guard stat(file, &info) == 0, access(file, R_OK) == 0 else {
                throw UsageError("cannot read \(file): \(String(cString: strerror(errno))); nothing was ingested")
            }
            guard info.st_mode & S_IFMT != S_IFDIR else {
                throw UsageError("\(file) is a directory; name the files in it (ingest \(file)/*.jsonl); nothing was ingested")
            }
            // Its bytes read as lines would each be quarantined, with no retry that could mend them.
            if info.st_mode & S_IFMT == S_IFREG, isGzip(file) {
                throw UsageError("\(file) is gzip-compressed; decompress it first (gunzip -c \(file) | subledger ingest -); nothing was ingested")
            }
        }
    }

    /// Whether the file begins with gzip's magic bytes.
    static func isGzip(_ file: String) -> Bool {
        guard let handle = fopen(file, "rb") else { return false }
        defer { fclose(handle) }
        var magic: [UInt8] = [0, 0]
        return fread(&magic, 1, 2, handle) == 2 && magic == [0x1F, 0x8B]
    }

    /// Reads every line of `files` (`-` is stdin) into the ledger, with a progress line. The
    /// next batch is read while the last one is stored; batches are stored one after another.
    ///
    /// A failure after some batches were stored ends the run with them counted and the failure
    /// in `stoppedBy`: thrown, a full disk midway said that nothing was written, with no
    /// document, after thousands of lines were appended.
    static func ingest(files: [String], into ledger: Ledger, recordedAt clock: () -> Int64) throws -> Result {
        var result = Result()
        do {
            try ingest(files: files, into: ledger, recordedAt: clock, counting: &result)
        } catch {
            // A failure to store (a full disk), after which a run may go on once it is fixed;
            // damage met on the way is exit 3, as for every command, and a usage error exit 2.
            guard CommandLineTool.outcome(of: error).0 == .failure, result.appended + result.duplicates + result.rejections.count > 0 else { throw error }
            // The error says what the write that failed left (nothing); the run stored more.
            result.stoppedBy = "stopped after \(result.appended) lines were appended and \(result.duplicates) found duplicates: \(error). "
                + (result.inFlight > 0 ? "Of the \(result.inFlight) lines read after them, in flight, some may be stored too; " : "")
                + "once fixed, ingest the same files again: what is stored is recognised as duplicates, the rest is appended"
        }
        return result
    }

    private static func ingest(files: [String], into ledger: Ledger, recordedAt clock: () -> Int64, counting result: inout Result) throws {
        let queue = DispatchQueue(label: "subledger.ingest")
        var pending: PendingBatch?
        var stored = 0
        var batchLimit = Self.firstBatchSize
        func collect() throws {
            guard let batch = pending else { return }
            pending = nil
            let outcomes = try batch.wait()
            stored += batch.lines.count
            for (line, outcome) in zip(batch.lines, outcomes) {
                switch outcome {
                case .appended(let position):
                    result.appended += 1
                    if result.first == nil { result.first = position }
                    result.last = position
                case .duplicate: result.duplicates += 1
                case .rejected(let reason, let detail): result.rejections.append(Rejection(line: line.line, source: line.source, reason: reason, detail: detail))
                }
            }
            Output.progress("ingest: \(stored) read, \(result.appended) appended, \(result.duplicates) duplicates, \(result.rejections.count) rejected")
        }
        for (index, input) in files.enumerated() {
            // Nothing is in flight while a file is opened, so a failure to open stops after
            // everything before it is stored.
            try collect()
            // Standard input is descriptor 0, read once (`requireReadable`) and left open.
            let descriptor = input == "-" ? 0 : open(input, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw UsageError("cannot read \(input): \(String(cString: strerror(errno)))") }
            defer { if input != "-" { close(descriptor) } }
            var batch: [IngestLine] = []
            var lineNumber = 0
            // A byte more than the quarantine keeps, so that a longer line is known as one.
            var lines = IngestLineReader(descriptor, limit: IngestLine.maxKeptBytes + 1)
            // A batch's verification starts before the batch ahead of it is stored, so the
            // cores go on verifying while that batch's last chunks are stored. At most three
            // batches are held: one being stored, the next being verified, one being read.
            func flush(last: Bool = false) throws {
                let verification = batch.isEmpty ? nil : ledger.verify(batch, last: last)
                try collect()
                guard let verification else { return }
                pending = .start(verification, into: ledger, recordedAt: clock(), on: queue)
                batch.removeAll(keepingCapacity: true)
            }
            while let bytes = lines.next() {
                lineNumber += 1
                // A byte order mark begins a file from a Windows editor, the first line even when
                // blank. A line cut short may hold more than blanks past the cut: it is refused.
                let marked = lineNumber == 1 && bytes.starts(with: [0xEF, 0xBB, 0xBF] as [UInt8])
                if bytes.count <= IngestLine.maxKeptBytes && bytes.dropFirst(marked ? 3 : 0).allSatisfy(IngestLine.isBlank) { continue }
                result.read += 1
                batch.append(IngestLine(bytes: bytes, line: lineNumber, source: input))
                if batch.count == batchLimit {
                    try flush()
                    batchLimit = min(Self.batchSize, batchLimit * 4)
                }
            }
            try flush(last: index == files.count - 1 || lines.failure != nil)
            if let failure = lines.failure {
                // What was read before is stored and counted; the rest of this input is not.
                try collect()
                throw InputUnreadable(source: input, line: lineNumber + 1, errno: failure)
            }
        }
        try collect()
        Output.endProgress()
    }
}
