import SubledgerCore

/// A listing that may be long (`events`, `quarantine list`) as `--format jsonl|csv|json`: one
/// record a line (jsonl, csv), or the one document (json), `{"KEY": [...]}`, written a record at
/// a time, in chunks as the records are read, so memory stays constant however many there are
/// (the whole of a 955 k-event ledger as one document took 4 GB held in memory).
struct RecordStream<Record> {
    let format: OutputFormat
    let cells: (Record) -> [Cell]
    let json: (Record) -> JSON
    let write: (String) -> Void
    /// The data directory whose `--data` the commands an error names carry, as stderr's do.
    let data: DataDirectory
    private var pending = ""
    private var written = 0
    /// Whether any output went to `write` yet.
    private var flushed = false

    static var chunkSize: Int { 1 << 16 }

    /// `key` names the document's array; `columns` head the CSV and `cells` fill its rows.
    init(format: OutputFormat, key: String, columns: [Table.Column], cells: @escaping (Record) -> [Cell], json: @escaping (Record) -> JSON,
         data: DataDirectory, write: @escaping (String) -> Void) {
        self.format = format
        self.cells = cells
        self.json = json
        self.data = data
        self.write = write
        switch format {
        case .csv: pending = columns.map { CSVRenderer.field($0.key) }.joined(separator: ",") + "\r\n"
        case .json: pending = "{" + JSON.string(key).serialized() + ":["
        default: break
        }
    }

    private mutating func write(_ record: Record) {
        switch format {
        case .csv: pending += cells(record).map { CSVRenderer.field($0.csvText) }.joined(separator: ",") + "\r\n"
        case .json: pending += (written == 0 ? "" : ",") + json(record).serialized()
        default: pending += json(record).serialized() + "\n"
        }
        written += 1
        if pending.utf8.count >= Self.chunkSize { flush() }
    }

    /// Ends the output: for json, the document's close, after `fields` (where the next page
    /// starts, for `events`).
    private mutating func finish(with fields: [(String, JSON)]) {
        if format == .json {
            pending += "]" + fields.map { "," + JSON.string($0.0).serialized() + ":" + $0.1.serialized() }.joined() + "}\n"
        }
        flush()
    }

    /// Streams `records` through `write`, then finishes with the fields `records` returns.
    ///
    /// When it throws (damage met on the way) before anything was written, nothing is, as for
    /// every command. After, what was written cannot be taken back: a json document is closed
    /// with `error` saying why it stops short, so that it still parses, and the error goes on to
    /// its exit code either way.
    mutating func stream(_ records: (_ write: (Record) -> Void) throws -> [(String, JSON)]) throws {
        let fields: [(String, JSON)]
        do {
            fields = try records { write($0) }
        } catch {
            if flushed {
                finish(with: [("error", .string(data.spelling(CommandLineTool.outcome(of: error).1)))])
            }
            throw error
        }
        finish(with: fields)
    }

    private mutating func flush() {
        guard !pending.isEmpty else { return }
        write(pending)
        pending = ""
        flushed = true
    }
}
