import SubledgerCore
import Synchronization

extension Projection {
    /// Adds the rollup cells `timeline` contributes to `sink`. A store keeps the sum over all
    /// timelines; when a fold touches a timeline, it takes the timeline's cells back before the
    /// fold and adds them after (`RollupCells.TakingBack`), so late events rewrite past periods.
    ///
    /// `smallBusiness` and `catalog` shape proceeds and MRR, so the cells depend on them: a store
    /// built under other settings must be rebuilt.
    func addRollups(of timeline: borrowing Timeline, to sink: inout some RollupSink, smallBusiness: Bool, catalog: ProductCatalog?) {
        let environment = timeline.key.environment
        let history = SubscriptionHistory(timeline, visibility: Visibility())
        sink.addRevenue(of: history, environment: environment, smallBusiness: smallBusiness)
        let segments = history.segments()
        for segment in segments {
            let share = mrrShare(of: segment, in: history, catalog: catalog)
            sink.addActivity(of: segment, share: share, in: history, environment: environment)
        }
        let entitlement = EntitlementTimeline(segments)
        sink.addChurn(of: history, entitlement, environment: environment)
        sink.addCohort(of: entitlement, environment: environment)
    }
}

extension Projection {
    /// The rollup cells of every timeline, summed on this thread.
    func rollups(_ settings: RollupSettings) -> RollupCells {
        var sum = RollupCells()
        addRollups(to: &sum, settings)
        return sum
    }

    /// Adds the rollup cells of every timeline to `sink`, on this thread (a fold's few timelines).
    func addRollups(to sink: inout some RollupSink, _ settings: RollupSettings) {
        for timeline in timelines {
            addRollups(of: timeline, to: &sink, smallBusiness: settings.smallBusiness, catalog: settings.catalog)
        }
    }

    /// The rollup cells of every timeline as a few runs, each summed and sorted on a core over a
    /// share of the timelines; a rebuild merges them as it writes them.
    func rollupRuns(_ settings: RollupSettings) -> [RollupRun] {
        // More runs than cores, so a core that another process slows does not hold up the rest.
        rollupShares(of: timelines, settings, parts: max(1, min(4, timelines.count / 4096)), RollupRun.init)
    }

    /// The rollup cells of `timelines` (this projection's or others named by its strings) in
    /// `parts` shares, each summed, finished and passed through `transform` on one of the cores: on this
    /// thread and on a thread per other core, which start at this one's priority (where one
    /// cannot start, the others take its shares).
    func rollupShares<Share: Sendable>(
        of timelines: [Timeline], _ settings: RollupSettings, parts: Int,
        _ transform: @escaping @Sendable (RollupShare) -> Share
    ) -> [Share] {
        let shares = Lock((next: 0, done: [Share?](repeating: nil, count: parts)))
        let sumShares: @Sendable () -> Void = {
            while true {
                let part = shares.withLock { state in
                    defer { state.next += 1 }
                    return state.next
                }
                guard part < parts else { return }
                let share = (timelines.count * part / parts)..<(timelines.count * (part + 1) / parts)
                var sum = RollupShare(timelines: share.count)
                // Through a buffer, as `write` encodes them. Each timeline's arrays are asked for
                // ahead, as the fold does: the sum reads every element of each.
                timelines.withUnsafeBufferPointer { timelines in
                    let first = timelines.baseAddress!
                    for index in share {
                        if index + 2 < share.upperBound { Timeline.prefetchArrays(of: first + index + 2, .heads) }
                        if index + 1 < share.upperBound { Timeline.prefetchArrays(of: first + index + 1, .whole) }
                        addRollups(of: timelines[index], to: &sum, smallBusiness: settings.smallBusiness, catalog: settings.catalog)
                    }
                }
                sum.finish()
                let transformed = transform(sum)
                shares.withLock { $0.done[part] = transformed }
            }
        }
        let helpers = (1..<max(1, min(parts, Processors.online))).compactMap {
            try? PosixThread.spawn(name: "rollup-sum-\($0)", sumShares)
        }
        sumShares()
        for helper in helpers { helper.join() }
        return shares.withLock { $0.done.map { $0! } }
    }
}
