#if canImport(Glibc)
import Glibc
#endif
import SubledgerLedger

/// `subledger ingest [FILE|-]...`: verifies and appends every line; rejected lines are
/// quarantined and make the exit code 1.
enum IngestCommand {
    /// Lines handed to the ledger at once (it pipelines verification within them).
    static let batchSize = 4096

    struct Result {
        var read = 0, appended = 0, duplicates = 0
        var rejections: [(line: Int, source: String, reason: String, detail: String)] = []
        var first: String?, last: String?
    }

    static func run(_ arguments: Arguments, _ data: DataDirectory) throws -> ExitCode {
        try arguments.allow()
        try data.requireExisting()
        let ledger = try Ledger(directory: data.path)
        defer { ledger.close() }
        let result = try ingest(files: arguments.positional.isEmpty ? ["-"] : arguments.positional, into: ledger)
        let rejections = result.rejections
        if arguments.json {
            Output.print(JSON.object([
                ("read", .int(result.read)), ("appended", .int(result.appended)), ("duplicates", .int(result.duplicates)), ("rejected", .int(rejections.count)),
                ("rejections", .array(rejections.map { .object([("line", .int($0.line)), ("source", .string($0.source)), ("reason", .string($0.reason)), ("detail", .string($0.detail))]) })),
                ("firstPosition", .optional(result.first)), ("lastPosition", .optional(result.last)),
            ]).serialized())
        } else {
            Output.print("read \(result.read), appended \(result.appended), duplicates \(result.duplicates), rejected \(rejections.count)")
            if !rejections.isEmpty {
                Output.print(Output.table(["line", "source", "reason", "detail"], rejections.map { [String($0.line), $0.source, $0.reason, $0.detail] }))
                Output.print("rejected lines are quarantined: `subledger quarantine list`, then `subledger quarantine retry` after fixing the configuration")
            }
        }
        return rejections.isEmpty ? .success : .failure
    }

    /// Reads every line of `files` (`-` is stdin) into the ledger, with a progress line.
    static func ingest(files: [String], into ledger: Ledger) throws -> Result {
        var result = Result()
        for input in files {
            let file: UnsafeMutablePointer<FILE>
            if input == "-" {
                // A stream of its own on fd 0: the C `stdin` global is not concurrency-safe in Swift 6.
                guard let standardInput = fdopen(0, "rb") else { throw UsageError("cannot read standard input") }
                file = standardInput
            } else {
                guard let opened = fopen(input, "rb") else { throw UsageError("cannot read \(input): \(String(cString: strerror(errno)))") }
                file = opened
            }
            defer { fclose(file) }
            var batch: [IngestLine] = []
            var lineNumber = 0
            var buffer: UnsafeMutablePointer<CChar>?
            var capacity = 0
            func flush() throws {
                guard !batch.isEmpty else { return }
                let outcomes = try ledger.ingest(batch, recordedAt: WallTime.nowMillis())
                for (line, outcome) in zip(batch, outcomes) {
                    switch outcome {
                    case .appended(let position):
                        result.appended += 1
                        if result.first == nil { result.first = position }
                        result.last = position
                    case .duplicate: result.duplicates += 1
                    case .rejected(let reason, let detail): result.rejections.append((line.line, line.source, reason, detail))
                    }
                }
                batch.removeAll(keepingCapacity: true)
                Output.progress("ingest: \(result.read) read, \(result.appended) appended, \(result.duplicates) duplicates, \(result.rejections.count) rejected")
            }
            while true {
                let length = getline(&buffer, &capacity, file)
                if length < 0 { break }
                lineNumber += 1
                let bytes = UnsafeRawBufferPointer(start: buffer, count: length)
                if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) { continue }
                result.read += 1
                batch.append(IngestLine(bytes: Array(bytes), line: lineNumber, source: input))
                if batch.count == batchSize { try flush() }
            }
            free(buffer)
            try flush()
        }
        Output.endProgress()
        return result
    }
}
