import SubledgerEvents
import Testing
@testable import SubledgerProjections

/// The exact fallback (`--at-position`, months cut by from/to) folds a report over parts of the
/// timelines and adds the parts' rows: that must give the report over all of them.
@Suite("Reports folded in parts")
struct ReportMergeTests {
    @Test("a report over three parts of the timelines, merged, equals the report over all of them", arguments: [UInt64(3), 9])
    func partsMergeToTheWhole(seed: UInt64) throws {
        let workload = try SimulatedWorkload(seed: seed, customers: 90, months: 8)
        let whole = workload.projection()
        let cut = [0, whole.timelines.count / 3, whole.timelines.count * 2 / 3, whole.timelines.count]
        let parts = (0..<3).map { Projection(strings: whole.strings, timelines: Array(whole.timelines[cut[$0]..<cut[$0 + 1]]), environments: whole.environmentIDs) }
        let scope = ReportScope(environment: .production)
        let (from, to) = (workload.start, workload.end)

        for by in ReportGranularity.allCases {
            for refunds in RefundConvention.allCases {
                var revenue = RevenueReport(from: from, to: to, by: by, refunds: refunds, environment: "Production", rows: [])
                for part in parts { revenue.merge(part.revenue(from: from, to: to, by: by, byProduct: true, refunds: refunds, scope: scope)) }
                #expect(revenue == whole.revenue(from: from, to: to, by: by, byProduct: true, refunds: refunds, scope: scope))
            }
            var churn = ChurnReport(from: from, to: to, by: by, environment: "Production", rows: [])
            for part in parts { churn.merge(part.churn(from: from, to: to, by: by, scope: scope)) }
            #expect(churn == whole.churn(from: from, to: to, by: by, scope: scope))
        }
        for month in 1..<8 {
            let at = UTCMonth(number: UTCMonth(containing: from.start).number + month).start + 3_600_000
            var mrr = MRRReport(at: at, environment: "Production", rows: [])
            for part in parts { mrr.merge(part.mrr(at: at, scope: scope)) }
            #expect(mrr == whole.mrr(at: at, scope: scope))
        }
        let months = (UTCMonth(containing: from.start), UTCMonth(containing: to.start))
        var cohorts = CohortReport(from: months.0, to: months.1, environment: "Production", at: to.start, rows: [])
        for part in parts { cohorts.merge(part.cohorts(from: months.0, to: months.1, now: to.start, scope: scope)) }
        #expect(cohorts == whole.cohorts(from: months.0, to: months.1, now: to.start, scope: scope))
    }
}
