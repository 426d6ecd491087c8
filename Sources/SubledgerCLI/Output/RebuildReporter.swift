import SubledgerCore
import SubledgerProjections

/// Prints how a rebuild of the projection database goes, on stderr: what it folds and why, the
/// memory it will take (with a warning when that is more than the process can still get, since
/// the kernel would end it without a word), progress through the fold, the write, the end.
///
/// `subledger rebuild` uses it, and so does every command that opens a data directory, whose
/// database may be rebuilt on open (a new schema version, a damaged database): at 10 M events that
/// is most of a minute, which should not pass in silence.
enum RebuildReporter {
    /// For `subledger rebuild`.
    static let explicit: RebuildObserver = { report($0, prefix: "rebuild") }

    /// For a command that opens a data directory: silent unless a rebuild of a non-empty log starts.
    static let onOpen: RebuildObserver = { progress in
        if case .folding(let records, _, _) = progress, records == 0 { return }
        report(progress, prefix: "projections")
    }

    private static func report(_ progress: RebuildProgress, prefix: String) {
        switch progress {
        case .folding(let records, let estimate, let reason):
            let what = "\(Cell.count(records).tableText) log records"
            let start = reason.map { "\(Self.describe($0)); rebuilding it from the \(what)" }
                ?? "folding the \(what) into a fresh projection database (the old one serves until the switch)"
            Output.diagnostic("\(prefix): \(start); expect about \(Cell.bytes(Int64(estimate)).tableText) of memory at the peak")
            if let headroom = MemoryHeadroom.current(), estimate > headroom.bytes {
                Output.diagnostic("\(prefix): warning: " + memoryWarning(headroom))
            }
        case .folded(let events, let records):
            let share = records > 0 ? " (\(events * 100 / records) %)" : ""
            Output.progress("\(prefix): \(Cell.count(events).tableText) / \(Cell.count(records).tableText) events folded\(share)")
        case .writing(let timelines):
            Output.progress("\(prefix): writing the database (\(Cell.count(timelines).tableText) subscriptions and purchases)")
        case .finished(let seconds):
            Output.endProgress()
            if prefix != "rebuild" { Output.diagnostic("\(prefix): rebuilt in \(Double(Int(seconds * 10)) / 10) s") }
        }
    }

    static func describe(_ reason: ProjectionStore.RebuildReason) -> String {
        switch reason {
        case .missing: "there is no projection database yet"
        case .schemaChanged(let stored, let current):
            "the projection database was written by another version of subledger (schema \(stored); this one uses \(current))"
        case .settingsChanged: "the Small Business setting or the catalog changed since the projection database was written"
        case .damaged(let detail): "the projection database is damaged (\(detail))"
        case .logMismatch: "the projection database was made from another log (the log was replaced)"
        }
    }

    static func memoryWarning(_ headroom: MemoryHeadroom) -> String {
        let available = Cell.bytes(Int64(headroom.bytes)).tableText
        let kept = "if the kernel ends the rebuild for lack of memory, the database in use is kept"
        switch headroom.bound {
        case .machine:
            return "that is more than the \(available) this machine has available (MemAvailable); \(kept): free memory or add some, then run `subledger rebuild`"
        case .cgroup(let limit):
            return "that is more than the \(available) left under this process's memory limit of \(Cell.bytes(Int64(limit)).tableText) (its cgroup: systemd's MemoryMax=, a container's limit); \(kept): raise the limit, then run `subledger rebuild`"
        case .dataSizeLimit(let limit):
            return "that is more than the \(available) left under the data size limit of \(Cell.bytes(Int64(limit)).tableText) (ulimit -d); \(kept): raise it, then run `subledger rebuild`"
        }
    }
}
