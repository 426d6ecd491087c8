import SubledgerEvents
import SubledgerLog
import SubledgerProjections

/// The events as the log holds them. A record whose frame checks out can still hold an event
/// that does not decode (written so by a faulty build, or rewritten with its frame checksum
/// fixed): that is damage, named by file, offset and position as a frame's is, so every command
/// that meets it exits 3 and every route answers `ledger_corrupted`.
public enum StoredEvents {
    /// The recorded time and the view of the event record payload at `position` in `log`.
    static func view(_ payload: UnsafeRawBufferPointer, at position: LogPosition, log: String) throws(LogError) -> (recordedAt: Int64, view: EventView) {
        guard let (recordedAt, bytes) = EventRecord.split(payload) else { throw .corrupted(problem(NotAnEvent(kind: EventRecord.kind, bytes: payload.count), at: position, log: log)) }
        do { return (recordedAt, try EventView(bytes)) } catch { throw .corrupted(problem(error, at: position, log: log)) }
    }

    /// As `view`, with the event built from it.
    static func decode(_ payload: UnsafeRawBufferPointer, at position: LogPosition, log: String) throws(LogError) -> (recordedAt: Int64, event: Event) {
        let (recordedAt, view) = try view(payload, at: position, log: log)
        return (recordedAt, Event(view))
    }

    /// A record of the event log that holds no event: of another kind (the event log holds kind
    /// 1 only), or too short for an event's recorded time and layout.
    struct NotAnEvent: Error, CustomStringConvertible {
        var kind: UInt8
        var bytes: Int

        var description: String {
            kind == EventRecord.kind ? "its \(bytes) bytes are too few for an event" : "it is a record of kind \(kind), which the event log does not hold"
        }
    }

    static func problem(_ why: some CustomStringConvertible, at position: LogPosition, log: String) -> LogProblem {
        placed(at: position, log: log, detail: "the event at position \(position) does not decode (\(why)), though its frame checksum matches: upgrade subledger if a newer build wrote it; else it was rewritten since it was stored: restore this segment from a backup")
    }

    /// A `bad_event` at `position`, named by its segment and offset.
    private static func placed(at position: LogPosition, log: String, detail: String) -> LogProblem {
        let place = (try? LogReader(directory: log).place(of: position)) ?? (file: log, offset: Int64(position.rawValue))
        return LogProblem(file: place.file, offset: place.offset, kind: .badEvent, detail: detail)
    }

    /// Every record of `log` that is no event, or does not read as the fold reads it
    /// (`EventView`: its layout, texts and vocabulary, all a decode checks), for `verify`, the
    /// first `namedProblems` by place and the rest counted. Building each event besides, as a
    /// decode does, tripled verify's time. Frame damage is the frame check's to name: the scan
    /// stops there. `progress` is told the records read so far, every 4,096.
    public static func problems(log: String, progress: (Int) -> Void = { _ in }) -> [LogProblem] {
        var found: [LogProblem] = []
        var unnamed: (first: LogPosition, why: String, count: Int)?
        var read = 0
        try? LogReader(directory: log).scan { entry in
            read += 1
            if read % 4096 == 0 { progress(read) }
            guard let why = failure(of: entry) else { return true }
            if found.count < namedProblems {
                found.append(problem(why, at: entry.position, log: log))
            } else {
                unnamed = (unnamed?.first ?? entry.position, unnamed?.why ?? "\(why)", (unnamed?.count ?? 0) + 1)
            }
            return true
        }
        if let unnamed {
            found.append(unnamed.count == 1 ? problem(unnamed.why, at: unnamed.first, log: log) : placed(
                at: unnamed.first, log: log,
                detail: "\(unnamed.count) records from position \(unnamed.first) on hold no event that reads (the first: \(unnamed.why)), besides the \(namedProblems) named before them: is this directory the ledger's event log? If it is, restore it from a backup"))
        }
        return found
    }

    /// Why `entry` holds no event that reads; nil when it does.
    private static func failure(of entry: LogEntry) -> (any CustomStringConvertible)? {
        guard entry.kind == EventRecord.kind, let (_, bytes) = EventRecord.split(entry.payload) else {
            return NotAnEvent(kind: entry.kind, bytes: entry.payload.count)
        }
        do { _ = try EventView(bytes) } catch { return error }
        return nil
    }

    /// Problems named one by one: a directory of another log put in place of the event log has
    /// millions of records, each a problem.
    static let namedProblems = 100
}
