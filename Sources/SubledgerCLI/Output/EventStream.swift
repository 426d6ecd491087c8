import SubledgerLedger

/// `events --format jsonl|csv`: one event a line, written in chunks as the events are read, so
/// memory stays constant however many events match.
struct EventStream {
    let format: OutputFormat
    let columns: [Table.Column]
    let write: (String) -> Void
    private var pending = ""

    static let chunkSize = 1 << 16

    init(format: OutputFormat, raw: Bool, reverify: Bool, write: @escaping (String) -> Void) {
        self.format = format
        self.write = write
        columns = EventItem.columns(raw: raw, reverify: reverify)
        if format == .csv { pending = columns.map { CSVRenderer.field($0.key) }.joined(separator: ",") + "\r\n" }
    }

    mutating func write(_ item: EventItem) {
        switch format {
        case .csv: pending += item.cells(columns).map { CSVRenderer.field($0.csvText) }.joined(separator: ",") + "\r\n"
        default: pending += item.json.serialized() + "\n"
        }
        if pending.utf8.count >= Self.chunkSize { flush() }
    }

    mutating func flush() {
        guard !pending.isEmpty else { return }
        write(pending)
        pending = ""
    }
}
