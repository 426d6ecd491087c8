import SubledgerCore
import SubledgerLedger
import SubledgerLog

/// `events --format jsonl|csv|json`: one event a line (jsonl, csv), or the contract's one
/// document (json) written an event at a time, in chunks as the events are read, so memory stays
/// constant however many events match (the whole of a 955 k-event ledger as one document took
/// 4 GB held in memory).
struct EventStream {
    let format: OutputFormat
    let columns: [Table.Column]
    let write: (String) -> Void
    private var pending = ""
    private var written = 0

    static let chunkSize = 1 << 16

    init(format: OutputFormat, raw: Bool, reverify: Bool, write: @escaping (String) -> Void) {
        self.format = format
        self.write = write
        columns = EventItem.columns(raw: raw, reverify: reverify)
        switch format {
        case .csv: pending = columns.map { CSVRenderer.field($0.key) }.joined(separator: ",") + "\r\n"
        case .json: pending = "{\"events\":["
        default: break
        }
    }

    mutating func write(_ item: EventItem) {
        switch format {
        case .csv: pending += item.cells(columns).map { CSVRenderer.field($0.csvText) }.joined(separator: ",") + "\r\n"
        case .json: pending += (written == 0 ? "" : ",") + item.json.serialized()
        default: pending += item.json.serialized() + "\n"
        }
        written += 1
        if pending.utf8.count >= Self.chunkSize { flush() }
    }

    /// Ends the output: for json, the document's close with where the next page starts.
    mutating func finish(next: LogPosition?) {
        if format == .json { pending += "],\"next\":" + JSON.optional(next?.description).serialized() + "}\n" }
        flush()
    }

    private mutating func flush() {
        guard !pending.isEmpty else { return }
        write(pending)
        pending = ""
    }
}
