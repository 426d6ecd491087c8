import SubledgerEvents
import SubledgerLog
import SubledgerProjections

/// Whether the evidence log holds what the event log points at. Each log's own check passes
/// for an evidence log removed or cut short at a record's end: it reads as a shorter, clean one.
public enum EvidenceCoverage {
    /// Throws when one log is missing beside the other holding records: the ledger's damage (a
    /// restore that left a directory out), refused before anything opens, writes, or answers
    /// for an empty ledger.
    static func requireBothLogs(_ layout: DataDirectoryLayout) throws {
        if let missing = missingLog(layout) { throw LogError.corrupted(missing) }
    }

    /// The problem, if either log is missing beside the other, or the last event (evidence
    /// positions grow with event positions) refers to evidence past the evidence log's end.
    public static func problems(directory: String) throws -> [LogProblem] {
        let layout = DataDirectoryLayout(directory)
        if let missing = missingLog(layout) { return [missing] }
        guard FileIO.exists(layout.log), FileIO.exists(layout.evidence) else { return [] }
        let events = LogReader(directory: layout.log)
        // A log that does not read is named by its own check, not as a short one.
        guard let last = try? events.summary().lastPosition, let end = try? LogReader(directory: layout.evidence).summary().endPosition else { return [] }
        do {
            return try problem(directory: directory, lastEvent: last, evidenceEnd: end).map { [$0] } ?? []
        } catch {
            // `problem` throws nothing but damage; the rethrow keeps the catch typed.
            guard case .corrupted(let problem) = error else { throw error }
            return [problem]
        }
    }

    /// As `problems(directory:)`, for a caller that has read the two logs' ends already. A last
    /// record that is no event, or one that does not decode, is the log's damage (`bad_event`),
    /// thrown: its reference to evidence cannot be read.
    public static func problem(directory: String, lastEvent last: LogPosition, evidenceEnd end: LogPosition) throws(LogError) -> LogProblem? {
        let layout = DataDirectoryLayout(directory)
        guard let record = try? LogReader(directory: layout.log).record(at: last) else { return nil }
        guard record.kind == EventRecord.kind else {
            throw .corrupted(StoredEvents.problem(StoredEvents.NotAnEvent(kind: record.kind, bytes: record.payload.count), at: last, log: layout.log))
        }
        let reference = try record.payload.withUnsafeBytes { payload in
            Result { () throws(LogError) in try StoredEvents.view(payload, at: last, log: layout.log).view.evidence }
        }.get()
        let needed = reference.position + UInt64(LogFormat.frameHeaderSize) + UInt64(reference.length)
        guard needed > end.rawValue else { return nil }
        return LogProblem(
            file: layout.evidence, offset: Int64(end.rawValue), kind: .truncated,
            detail: "the events up to position \(last) refer to evidence up to position \(needed), past the evidence log's end (\(end)): it was cut short (after a power loss, the next open cuts the last batch's events, never acknowledged; anything more: restore evidence/ from a backup)")
    }

    /// One log missing beside the other that holds records (one that does not read is named by
    /// its own check, or refused by its own open).
    private static func missingLog(_ layout: DataDirectoryLayout) -> LogProblem? {
        let pairs = [(layout.evidence, layout.log, "the evidence log is missing beside the event log that refers to it; restore evidence/ from a backup"),
                     (layout.log, layout.evidence, "the event log is missing beside the evidence log that holds its messages; restore log/ from a backup")]
        for (missing, other, detail) in pairs where !FileIO.exists(missing) && FileIO.exists(other) {
            if let records = try? LogReader(directory: other).summary().records, records > 0 {
                return LogProblem(file: missing, offset: 0, kind: .truncated, detail: detail)
            }
        }
        return nil
    }
}
