import Foundation
@testable import SubledgerProjections
import SubledgerCore
import SubledgerTestSupport
import Testing

@Suite("Rebuild in batches: bounded memory, the same database")
struct RebuildInBatchesTests {
    @Test("a rebuild in batches of the realistic mix, duplicates and late deliveries included, answers every report and look-up as a rebuild in memory does, from as many rows",
          arguments: [UInt64(4), 9])
    func batchesAnswerAsMemoryDoes(seed: UInt64) throws {
        let workload = try SimulatedWorkload(seed: seed, customers: 120, months: 8)
        let events = workload.inputs.map(\.event)
        let data = try DataDirectory()
        try data.append(events)
        let paths: [String] = try {
            let summary = try ProjectionStore.rebuild(
                directory: data.projections, logDirectory: data.log, settings: RollupSettings(), strategy: .inMemory)
            #expect(summary.method == .inMemory)
            let inMemory = try ProjectionStore(directory: data.projections, logDirectory: data.log)
            #expect(inMemory.opening == .loaded)
            // Small batches, so that most timelines are loaded, changed and written back many times,
            // and few activity changes held, so that they are added to the stored rows many times.
            let batchedSummary = try ProjectionRebuild(directory: data.path + "/batched", logDirectory: data.log, settings: RollupSettings())
                .inBatches(records: events.count, batchRecords: 97, instantsHeld: 50).summary
            #expect(batchedSummary.events == events.count)
            #expect(batchedSummary.method == .batched(shortOf: nil))
            let batched = try ProjectionStore(directory: data.path + "/batched", logDirectory: data.log)
            #expect(batched.opening == .loaded)
            #expect(batched.eventsFolded == inMemory.eventsFolded && batched.lastPosition == inMemory.lastPosition)
            try expectSameAnswers(batched.reader, inMemory.reader, workload: workload)
            return [inMemory.snapshotPath, batched.snapshotPath]
        }()
        // The same rows under other string ids: the two folds intern strings in another order.
        let (one, other) = (try dumpSnapshot(paths[0]), try dumpSnapshot(paths[1]))
        #expect(one.mapValues(\.count) == other.mapValues(\.count))
    }

    @Test("catching up in many small batches, each taking back the touched timelines' rollups and adding them again as ingestion does, answers as a rebuild in memory does",
          arguments: [UInt64(4), 9])
    func catchingUpKeepsRollupsAsMemoryDoes(seed: UInt64) throws {
        let workload = try SimulatedWorkload(seed: seed, customers: 120, months: 8)
        let events = workload.inputs.map(\.event)
        // Appended in the same two parts as the log the other store follows, so both logs are one.
        let data = try DataDirectory()
        try data.append(Array(events.prefix(1)))
        try data.append(Array(events.dropFirst()))
        _ = try ProjectionStore.rebuild(directory: data.projections, logDirectory: data.log, settings: RollupSettings(), strategy: .inMemory)
        let inMemory = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        let followed = try DataDirectory()
        try followed.append(Array(events.prefix(1)))
        let store = try ProjectionStore(directory: followed.projections, logDirectory: followed.log)
        try followed.append(Array(events.dropFirst()))
        // Small batches, so that most timelines are loaded, changed and written back many times.
        #expect(try store.catchUp(batchRecords: 97) == events.count - 1)
        try expectSameAnswers(store.reader, inMemory.reader, workload: workload)
    }

    /// Every report over the workload's span, by day and by month, and every subscription's state.
    private func expectSameAnswers(_ got: ProjectionReader, _ expected: ProjectionReader, workload: SimulatedWorkload) throws {
        let scope = ReportScope(environment: .production)
        let (from, to) = (workload.start, UTCDay(number: workload.end.number - 1))
        for granularity in ReportGranularity.allCases {
            for convention in RefundConvention.allCases {
                #expect(try got.revenue(from: from, to: to, by: granularity, byProduct: true, refunds: convention, scope: scope)
                    == expected.revenue(from: from, to: to, by: granularity, byProduct: true, refunds: convention, scope: scope))
            }
            #expect(try got.churn(from: from, to: to, by: granularity, scope: scope) == expected.churn(from: from, to: to, by: granularity, scope: scope))
        }
        let months = UTCMonth(containing: workload.start.start).number...UTCMonth(containing: workload.end.start).number
        // At each day's start, and inside each day, which reads the changes at single instants.
        for day in workload.start.number..<workload.end.number {
            for instant in [UTCDay(number: day).start, UTCDay(number: day).start + 47_123_456] {
                #expect(try got.mrr(at: instant, scope: scope) == expected.mrr(at: instant, scope: scope))
            }
        }
        let (first, last) = (UTCMonth(number: months.lowerBound), UTCMonth(number: months.upperBound))
        #expect(try got.cohorts(from: first, to: last, now: workload.end.start, scope: scope)
            == expected.cohorts(from: first, to: last, now: workload.end.start, scope: scope))
        let ids = Set(workload.inputs.compactMap { $0.event.transaction?.originalTransactionId })
        #expect(ids.count > 100)
        for id in ids {
            #expect(try got.customer(id, asOf: workload.end.start) == expected.customer(id, asOf: workload.end.start), "\(id)")
        }
        #expect(try got.summary() == expected.summary())
    }

    @Test("a rebuild in batches that the disk cannot hold fails leaving nothing of its own behind: its space is what the disk needs back",
          .enabled(if: SmallFilesystem.isAvailable, "\(SmallFilesystem.missing)"))
    func fullDiskLeavesNothing() throws {
        let workload = try SimulatedWorkload(seed: 4, customers: 120, months: 8)
        let data = try DataDirectory()
        try data.append(workload.inputs.map(\.event))
        let filesystem = try #require(SmallFilesystem(size: "1m"), "mounting a tmpfs failed")
        let projections = filesystem.path + "/projections"
        #expect(throws: (any Error).self) {
            try ProjectionStore.rebuild(directory: projections, logDirectory: data.log, settings: RollupSettings(), strategy: .batched)
        }
        let left = (try? FileManager.default.contentsOfDirectory(atPath: projections)) ?? []
        #expect(!left.contains { $0.hasPrefix("projections.new-") }, "\(left)")
    }

    @Test("a rebuild in batches reports the events folded by the clock as well as every million: with no time between reports, after every batch")
    func batchedProgressByTheClock() throws {
        let (events, _) = mixedEvents()
        let data = try DataDirectory()
        try data.append(events)
        let recorder = RebuildRecorder()
        var rebuild = ProjectionRebuild(directory: data.projections, logDirectory: data.log, settings: RollupSettings())
        rebuild.observer = recorder.observer
        let batch = 7
        _ = try rebuild.inBatches(records: events.count, batchRecords: batch, progressInterval: .zero)
        let folded = recorder.all.compactMap { report -> Int? in
            guard case .folded(let count, _) = report else { return nil }
            return count
        }
        #expect(events.count > 3 * batch)
        #expect(folded == Array(stride(from: batch, to: events.count, by: batch)) + [events.count])
    }

    @Test("a rebuild asked to fold in batches says so, writes as it folds, compacts, switches, leaves nothing beside the snapshot, and answers as folding event by event does")
    func askedForBatches() throws {
        let (events, ids) = mixedEvents()
        let data = try DataDirectory()
        try data.append(events)
        let recorder = RebuildRecorder()
        let summary = try ProjectionStore.rebuild(
            directory: data.projections, logDirectory: data.log, settings: RollupSettings(), strategy: .batched, observer: recorder.observer)
        #expect(summary.method == .batched(shortOf: nil))
        #expect(summary.events == events.count && summary.snapshotBytes > 0)
        let reports = recorder.all
        #expect(reports.first == .folding(
            records: events.count, estimatedPeakBytes: ProjectionStore.estimatedPeakBytes(records: events.count), reason: nil,
            method: .batched(shortOf: nil)))
        // It writes timelines as it folds (no write of them after the fold), sums the reports'
        // rollups over all of them once, then compacts what it wrote.
        let timelines = try ProjectionStore(directory: data.projections, logDirectory: data.log).reader.summary().timelines
        #expect(Array(reports.dropFirst().dropLast()) == [
            .folded(events: events.count, records: events.count), .summingRollups(timelines: timelines), .compacting,
        ])
        #expect(summary.foldSeconds > 0 && summary.foldSeconds < summary.seconds)
        guard case .finished = reports.last else {
            Issue.record("the rebuild in batches did not report its end: \(reports)")
            return
        }
        // The database it folded into is gone once copied.
        #expect(try data.entries() == ["CURRENT", "snapshot-1"])
        let store = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        #expect(store.opening == .loaded)
        #expect(Answers(try store.reader.materialized(), ids: ids) == Answers(TestLedger(events).projection, ids: ids))
    }

    @Test("a crash in the middle of a rebuild in batches leaves the old database in use; the next rebuild clears both the snapshot in progress and the database it was folding into")
    func crashMidRebuildInBatches() throws {
        let (events, ids) = mixedEvents()
        let data = try DataDirectory()
        try data.append(events)
        let served = try ProjectionStore(directory: data.projections, logDirectory: data.log).snapshotPath
        for debris in ["projections.new-7", "projections.new-7-batches"] {
            try FileManager.default.createDirectory(atPath: data.projections + "/" + debris, withIntermediateDirectories: true)
            for file in ["data.mdb", "lock.mdb"] {
                try Data(repeating: 0, count: 8192).write(to: URL(fileURLWithPath: data.projections + "/" + debris + "/" + file))
            }
        }
        let reopened = try ProjectionStore(directory: data.projections, logDirectory: data.log)
        #expect(reopened.opening == .loaded && reopened.snapshotPath == served)
        try reopened.rebuild(strategy: .batched)
        #expect(try data.current() == "snapshot-8")
        #expect(try data.entries() == ["CURRENT", "snapshot-8"])
        #expect(Answers(try reopened.reader.materialized(), ids: ids) == Answers(TestLedger(events).projection, ids: ids))
    }

    @Test("auto folds in memory unless its estimate is more than the process can still take, or the headroom is unknown; the other strategies do as they say")
    func strategyResolution() {
        let machine = MemoryHeadroom(bytes: 1 << 30, bound: .machine)
        let limited = MemoryHeadroom(bytes: 100 << 20, bound: .dataSizeLimit(limit: 200 << 20))
        #expect(RebuildStrategy.automatic.method(estimate: 512 << 20, headroom: machine) == .inMemory)
        #expect(RebuildStrategy.automatic.method(estimate: 2 << 30, headroom: machine) == .batched(shortOf: machine))
        // Against a data size limit, room for the threads' reservations counts too.
        #expect(RebuildStrategy.automatic.method(estimate: 90 << 20, headroom: limited) == .batched(shortOf: limited))
        #expect(RebuildStrategy.automatic.method(estimate: 2 << 30, headroom: nil) == .inMemory)
        #expect(RebuildStrategy.inMemory.method(estimate: 2 << 30, headroom: machine) == .inMemory)
        #expect(RebuildStrategy.batched.method(estimate: 1 << 20, headroom: machine) == .batched(shortOf: nil))
    }
}
