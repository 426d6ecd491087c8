import SubledgerServer

extension ReportDocument {
    /// The report's CSV exactly as `subledger report ... --format csv` prints it: what `serve`
    /// answers for `?format=csv`.
    static func csv(_ document: ReportDocument) -> String {
        let renderer = CSVRenderer()
        switch document {
        case .revenue(let report): return renderer.render(report.tabulation)
        case .mrr(let report): return renderer.render(report.tabulation)
        case .mrrSeries(let report): return renderer.render(report.tabulation)
        case .churn(let report): return renderer.render(report.tabulation)
        case .cohorts(let report): return renderer.render(report.tabulation)
        }
    }
}
