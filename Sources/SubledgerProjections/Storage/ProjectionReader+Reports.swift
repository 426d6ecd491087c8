extension ProjectionReader {
    /// As `Projection.revenue(from:to:by:byProduct:refunds:smallBusiness:scope:)`.
    public func revenue(
        from: UTCDay, to: UTCDay, by granularity: ReportGranularity = .month, byProduct: Bool = false,
        refunds convention: RefundConvention = .refundDate, smallBusiness: Bool = false, scope: ReportScope
    ) throws(ProjectionError) -> RevenueReport {
        try materialized(environment: scope.environment).revenue(
            from: from, to: to, by: granularity, byProduct: byProduct, refunds: convention, smallBusiness: smallBusiness, scope: scope)
    }

    /// As `Projection.mrr(at:scope:)`.
    public func mrr(at instant: Int64, scope: ReportScope) throws(ProjectionError) -> MRRReport {
        try materialized(environment: scope.environment).mrr(at: instant, scope: scope)
    }

    /// As `Projection.churn(from:to:by:scope:)`.
    public func churn(from: UTCDay, to: UTCDay, by granularity: ReportGranularity = .month, scope: ReportScope) throws(ProjectionError) -> ChurnReport {
        try materialized(environment: scope.environment).churn(from: from, to: to, by: granularity, scope: scope)
    }

    /// As `Projection.cohorts(from:to:now:scope:)`.
    public func cohorts(from: UTCMonth, to: UTCMonth, now: Int64, scope: ReportScope) throws(ProjectionError) -> CohortReport {
        try materialized(environment: scope.environment).cohorts(from: from, to: to, now: now, scope: scope)
    }
}
