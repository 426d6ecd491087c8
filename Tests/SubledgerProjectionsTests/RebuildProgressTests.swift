import Foundation
import SubledgerEvents
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
        let timelines = try store.reader.summary().timelines
        let recorder = RebuildRecorder()
        let summary = try store.rebuild(observer: recorder.observer)
        #expect(summary.foldSeconds > 0 && summary.foldSeconds < summary.seconds)
        let reports = recorder.all
        // The database in use was made from this whole log: the fold makes its timelines again.
        #expect(reports.first == .folding(
            records: events.count, estimatedPeakBytes: ProjectionStore.estimatedPeakBytes(records: events.count, timelines: timelines),
            reason: nil, method: .inMemory))
        let folded = reports.dropFirst().dropLast(4)
        #expect(!folded.isEmpty && folded.allSatisfy { if case .folded(_, events.count) = $0 { true } else { false } })
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
        let estimates = sizes.map { ProjectionStore.estimatedPeakBytes(records: $0) }
        #expect(zip(estimates, estimates.dropFirst()).allSatisfy { $0 < $1 })
        // 16-byte slots, at most three quarters full: 10 M records need 2^24 slots in each index.
        #expect(estimates[4] > 2 * (1 << 24) * 16)
    }

    @Test("fewer timelines than records lower the memory estimate; a bound above the records changes nothing")
    func memoryEstimateBoundedByTimelines() {
        let records = 10_000_000
        let unbounded = ProjectionStore.estimatedPeakBytes(records: records)
        let quarter = ProjectionStore.estimatedPeakBytes(records: records, timelines: records / 4)
        #expect(quarter < unbounded)
        #expect(ProjectionStore.estimatedPeakBytes(records: records, timelines: records / 8) < quarter)
        #expect(ProjectionStore.estimatedPeakBytes(records: records, timelines: 2 * records) == unbounded)
        #expect(ProjectionStore.estimatedPeakBytes(records: records, timelines: records) == unbounded)
    }

    @Test("a rebuild bounds the timelines by the database in use plus one for each record it has not folded, and goes by none unsealed or made from another log")
    func timelinesBoundedByTheDatabaseInUse() throws {
        let events = MarchScenario().events
        let data = try DataDirectory()
        try data.append(events)
        let timelines = try ProjectionStore(directory: data.projections, logDirectory: data.log).reader.summary().timelines
        #expect(timelines < events.count)
        // Three records more, each for a subscription of its own.
        var apple = Notifier()
        let more = newSubscriptions("late", 3, from: at("2026-03-20"), &apple)
        try data.append(more)
        let records = events.count + more.count
        #expect(try firstReport(rebuilding: data, from: data.log) == .folding(
            records: records, estimatedPeakBytes: ProjectionStore.estimatedPeakBytes(records: records, timelines: timelines + more.count),
            reason: nil, method: .inMemory))
        #expect(try ProjectionStore(directory: data.projections, logDirectory: data.log).reader.summary().timelines == timelines + more.count)

        // Unsealed, as a crash leaves it, the database in use is not read at all.
        let current = try String(contentsOfFile: data.projections + "/CURRENT", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        try FileManager.default.removeItem(atPath: data.projections + "/" + current + "/CHECKSUM")
        #expect(try firstReport(rebuilding: data, from: data.log) == .folding(
            records: records, estimatedPeakBytes: ProjectionStore.estimatedPeakBytes(records: records), reason: nil, method: .inMemory))

        // The same database beside another log, longer than the bound it would give: its
        // checkpoint is no record of that log, so the estimate goes by the records alone.
        let extra = newSubscriptions("other", 20, from: at("2026-04-10"), &apple)
        let other = try DataDirectory()
        try other.append(more + events + extra)
        let otherRecords = more.count + events.count + extra.count
        #expect(timelines + more.count + extra.count < otherRecords)
        #expect(try firstReport(rebuilding: data, from: other.log) == .folding(
            records: otherRecords, estimatedPeakBytes: ProjectionStore.estimatedPeakBytes(records: otherRecords), reason: nil, method: .inMemory))
    }

    /// `count` new subscriptions, one notification each, named after `name`, a day apart from `first`.
    private func newSubscriptions(_ name: String, _ count: Int, from first: Int64, _ apple: inout Notifier) -> [Event] {
        (0..<count).map { index in
            let sub = Subscriber("\(name)-\(index)")
            let signed = first + Int64(index) * day
            let transaction = sub.transaction("\(name)-tx-\(index)", purchased: signed, expires: signed + 30 * day)
            return apple.notification("SUBSCRIBED", "INITIAL_BUY", signed: signed, transaction: transaction)
        }
    }

    /// What `subledger rebuild` of `data`'s projections from the log at `log` reports first.
    private func firstReport(rebuilding data: DataDirectory, from log: String) throws -> RebuildProgress? {
        let recorder = RebuildRecorder()
        _ = try ProjectionStore.rebuild(directory: data.projections, logDirectory: log, settings: RollupSettings(), observer: recorder.observer)
        return recorder.all.first
    }
}
