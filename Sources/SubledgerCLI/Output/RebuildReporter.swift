import SubledgerCore
import SubledgerProjections
import Synchronization

/// Prints how a rebuild of the projection database goes, on stderr: what it folds and why, the
/// memory it will take (with a warning when that is more than the process can still get, since
/// running out ends it, often without a word from the kernel), progress through the fold, the
/// write, the end.
///
/// `subledger rebuild` uses it, and so does every command that opens a data directory, whose
/// database may be rebuilt on open (a new schema version, a damaged database): at 10 M events that
/// is most of a minute, which should not pass in silence.
enum RebuildReporter {
    /// For `subledger rebuild` of `data`.
    static func explicit(_ data: DataDirectory) -> RebuildObserver {
        { report($0, onOpen: false, data) }
    }

    /// For a command that opens `data`, one per open: silent unless a rebuild of a non-empty
    /// log starts (a new ledger's first open builds an empty database, unannounced), or it waits
    /// for another command's (said before any fold of its own: `serve` and `ingest` waited for
    /// minutes without a word, and a server that neither logs nor listens looks hung).
    static func onOpen(_ data: DataDirectory) -> RebuildObserver {
        let announced = Announced()
        return { progress in
            if case .folding(let records, _, _, _) = progress { announced.value.store(records > 0, ordering: .relaxed) }
            if case .waitingForAnotherRebuild = progress {} else { guard announced.value.load(ordering: .relaxed) else { return } }
            report(progress, onOpen: true, data)
        }
    }

    private final class Announced: Sendable {
        let value = Atomic(false)
    }

    /// Commands named in a diagnostic carry the `--data` given (`DataDirectory.spelling`).
    private static func report(_ progress: RebuildProgress, onOpen: Bool, _ data: DataDirectory) {
        let prefix = onOpen ? "projections" : "rebuild"
        switch progress {
        case .folding(let records, let estimate, let reason, let method):
            let what = "\(Cell.count(records).tableText) log records"
            let start = reason.map { "\($0); rebuilding it from the \(what)" }
                ?? "folding the \(what) into a fresh projection database (the old one serves until the switch)"
            let peak = Cell.bytes(Int64(estimate)).tableText
            switch method {
            case .inMemory:
                Output.diagnostic(data.spelling("\(prefix): \(start), in memory; expect about \(peak) of memory at the peak"))
                if let headroom = MemoryHeadroom.current(), headroom.fallsShort(ofResident: estimate) {
                    Output.diagnostic(data.spelling("\(prefix): warning: " + memoryWarning(headroom, onOpen: onOpen)))
                }
            case .batched(let shortOf):
                // On open the service holds the log: forcing the fold in memory is for `subledger
                // rebuild` alone.
                let why = shortOf.map { headroom in
                    let force = onOpen ? "" : " (`--strategy in-memory` folds in memory regardless)"
                    return ": in memory it would take about \(peak), more than \(Self.bound(headroom, onOpen: onOpen).limit)\(force)"
                } ?? " (asked for)"
                Output.diagnostic(data.spelling(
                    "\(prefix): \(start), in batches\(why); memory stays that of a batch whatever the history, and it takes several times longer"))
            }
        case .folded(let events, let records):
            let share = records > 0 ? " (\(events * 100 / records) %)" : ""
            Output.progress("\(prefix): \(Cell.count(events).tableText) / \(Cell.count(records).tableText) events folded\(share)")
        case .writing(let timelines):
            Output.progress("\(prefix): writing the database (\(Cell.count(timelines).tableText) subscriptions and purchases)")
        case .wroteTimelines(let written, let timelines):
            let share = timelines > 0 ? " (\(written * 100 / timelines) %)" : ""
            Output.progress(
                "\(prefix): \(Cell.count(written).tableText) / \(Cell.count(timelines).tableText) subscriptions and purchases written\(share)")
        case .writingRollups:
            Output.progress("\(prefix): writing the reports' rollups")
        case .summingRollups(let timelines):
            Output.progress("\(prefix): summing the reports' rollups over \(Cell.count(timelines).tableText) subscriptions and purchases")
        case .compacting:
            Output.progress("\(prefix): compacting the database")
        case .waitingForAnotherRebuild:
            Output.diagnostic("\(prefix): another command is rebuilding the projection database; waiting for it")
        case .finished(let seconds):
            Output.endProgress()
            if onOpen { Output.diagnostic("\(prefix): rebuilt in \(Cell.tenths(seconds)) s") }
        }
    }

    /// What running short means, and what to do. On open there is no usable database to keep:
    /// the next open starts the rebuild over, so a service that restarts fails the same way.
    private static func memoryWarning(_ headroom: MemoryHeadroom, onOpen: Bool) -> String {
        let outcome = onOpen
            ? "if it runs out, the rebuild starts over on the next open"
            : "if it runs out, the rebuild stops and the database in use is kept"
        let (limit, remedy) = bound(headroom, onOpen: onOpen)
        let retry = onOpen ? "" : ", then run `subledger rebuild` again (without `--strategy in-memory` it folds in batches where memory is short)"
        return "that is more than \(limit); \(outcome): \(remedy)\(retry)"
    }

    /// The bound `headroom` names, in words, and how to give the process more.
    private static func bound(_ headroom: MemoryHeadroom, onOpen: Bool) -> (limit: String, remedy: String) {
        let available = Cell.bytes(Int64(headroom.bytes)).tableText
        switch headroom.bound {
        case .machine:
            return ("the \(available) this machine has available (MemAvailable)", "free memory or add some")
        case .cgroup(let bytes):
            return (
                "the \(available) left under this process's memory limit of \(Cell.bytes(Int64(bytes)).tableText) (its cgroup: systemd's MemoryMax=, a container's limit)",
                onOpen ? "raise the limit, or stop the service and run `subledger rebuild` outside it" : "raise the limit")
        case .dataSizeLimit(let bytes):
            // What the rebuild is weighed against: what is left once the reservations are set aside.
            let reserved = MemoryHeadroom.reservedBesidesResident
            let net = Cell.bytes(Int64(headroom.bytes > reserved ? headroom.bytes - reserved : 0)).tableText
            return (
                "the \(net) left under the data size limit of \(Cell.bytes(Int64(bytes)).tableText) (ulimit -d) once the \(Cell.bytes(Int64(reserved)).tableText) it also counts for threads' reservations is set aside",
                "raise it")
        }
    }
}
