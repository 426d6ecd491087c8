/// Reads what can be read of a damaged log: every valid record frame of every segment, past
/// damage too, as `verify` finds them. For a log whose records stand alone and whose loss of one
/// matters less than the loss of the rest (the quarantine's rejected input); never for the event
/// or evidence logs, whose damage stops the ledger until it is restored.
public enum LogSalvage {
    /// Calls `body` with each valid record of the log at `directory`, in order, its position
    /// that of the damaged log; returns how many stretches of damage were skipped (a segment
    /// whose header is damaged is one).
    @discardableResult
    public static func forEachReadableRecord(in directory: String, _ body: (LogEntry) throws -> Void) throws -> Int {
        let list: SegmentList
        do { list = try SegmentList(directory: directory) } catch { throw LogError.io(error) }
        var skipped = 0
        for segment in list.segments {
            let bytes: [UInt8]
            do { bytes = try readWholeFile(segment.path) } catch { throw LogError.io(error) }
            try bytes.withUnsafeBytes { raw in
                guard Frame.parseSegmentHeader(raw) != nil else {
                    if raw.contains(where: { $0 != 0 }) { skipped += 1 }
                    return
                }
                var offset = LogFormat.segmentHeaderSize
                while offset < raw.count {
                    switch Frame.parse(raw, at: offset) {
                    case .frame(let kind, let version, let payload, let size):
                        if kind != LogFormat.footerKind {
                            try body(LogEntry(position: LogPosition(rawValue: segment.firstPosition + UInt64(offset)), kind: kind, version: version,
                                              payload: UnsafeRawBufferPointer(rebasing: raw[payload])))
                        }
                        offset += size
                    case .incomplete, .badLength, .crcMismatch, .zero:
                        guard let next = SegmentWalk.nextValidFrame(raw, after: offset) else {
                            // Preallocated zeros, or a torn append, end the segment.
                            if raw[offset...].contains(where: { $0 != 0 }) && list.segments.last?.path != segment.path { skipped += 1 }
                            return
                        }
                        skipped += 1
                        offset = next
                    }
                }
            }
        }
        return skipped
    }
}
