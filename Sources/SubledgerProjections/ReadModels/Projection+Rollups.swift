extension Projection {
    /// The rollup cells one timeline contributes, from everything folded into it. A store keeps
    /// the sum over all timelines; when a fold touches a timeline, the store takes its previous
    /// contribution back and adds the new one, so late events rewrite past periods.
    ///
    /// `smallBusiness` and `catalog` shape proceeds and MRR, so the cells depend on them: a store
    /// built under other settings must be rebuilt.
    func rollupContribution(of timeline: borrowing Timeline, smallBusiness: Bool, catalog: ProductCatalog?) -> RollupContribution {
        var cells = RollupContribution()
        addRollups(of: timeline, to: &cells, smallBusiness: smallBusiness, catalog: catalog)
        cells.finish()
        return cells
    }

    /// Adds the rollup cells `timeline` contributes to `sink`.
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
