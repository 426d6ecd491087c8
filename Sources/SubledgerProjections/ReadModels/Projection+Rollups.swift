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
