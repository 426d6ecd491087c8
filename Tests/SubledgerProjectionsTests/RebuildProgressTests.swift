import SubledgerProjections
import Synchronization
import Testing

/// Collects what a rebuild reports.
final class RebuildRecorder: Sendable {
    private let reports = Mutex<[RebuildProgress]>([])

    var observer: RebuildObserver { { progress in self.reports.withLock { $0.append(progress) } } }
    var all: [RebuildProgress] { reports.withLock { $0 } }
}

@Suite("Rebuild progress: what a rebuild tells its caller, and when")
struct RebuildProgressTests {
    @Test("an explicit rebuild announces the log's records and its memory estimate, reports the fold, the write with its timelines written and then the rollups, and the end; the fold alone takes part of its time")
    func explicitRebuild() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(events)
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        let recorder = RebuildRecorder()
        let summary = try store.rebuild(observer: recorder.observer)
        #expect(summary.foldSeconds > 0 && summary.foldSeconds < summary.seconds)
        let reports = recorder.all
        #expect(reports.first == .folding(
            records: events.count, estimatedPeakBytes: ProjectionStore.estimatedPeakBytes(records: events.count), reason: nil, method: .inMemory))
        let folded = reports.dropFirst().dropLast(4)
        #expect(!folded.isEmpty && folded.allSatisfy { if case .folded(_, events.count) = $0 { true } else { false } })
        let timelines = try store.reader.summary().timelines
        #expect(Array(reports.dropLast().suffix(3)) == [
            .writing(timelines: timelines), .wroteTimelines(written: timelines, of: timelines), .writingRollups,
        ])
        guard case .finished(let seconds) = reports.last else {
            Issue.record("the last report is \(String(describing: reports.last)), not the end")
            return
        }
        #expect(seconds > 0)
    }

    @Test("a rebuild on open says why it runs; an open that finds its database in use reports nothing")
    func rebuildOnOpen() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(events)
        let first = RebuildRecorder()
        _ = try ProjectionStore(directory: data.projections, logDirectory: data.log, observer: first.observer)
        guard case .folding(events.count, _, .missing, .inMemory) = first.all.first else {
            Issue.record("a first open reported \(first.all), not a rebuild for a missing database")
            return
        }
        let again = RebuildRecorder()
        #expect(try ProjectionStore(directory: data.projections, logDirectory: data.log, observer: again.observer).opening == .loaded)
        #expect(again.all.isEmpty)
    }

    @Test("a database from another log is rebuilt on open with that reason, found while catching up rather than on reading the database")
    func rebuildForAnotherLog() throws {
        let recorder = RebuildRecorder()
        try withStoreOnAnotherLog(observer: recorder.observer) { _ in }
        #expect(recorder.all.first == .folding(
            records: 5, estimatedPeakBytes: ProjectionStore.estimatedPeakBytes(records: 5), reason: .logMismatch, method: .inMemory))
        guard case .finished = recorder.all.last else {
            Issue.record("the rebuild for another log did not report its end: \(recorder.all)")
            return
        }
    }

    @Test("the memory estimate grows with the log and covers at least the notification and transaction indexes sized for every record")
    func memoryEstimate() {
        let sizes = [0, 1_000, 100_000, 1_000_000, 10_000_000, 30_000_000]
        let estimates = sizes.map(ProjectionStore.estimatedPeakBytes(records:))
        #expect(zip(estimates, estimates.dropFirst()).allSatisfy { $0 < $1 })
        // 24-byte slots, at most three quarters full: 10 M records need 2^24 slots in each index.
        #expect(estimates[4] > 2 * (1 << 24) * 24)
    }
}
