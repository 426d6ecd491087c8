import SubledgerProjections

/// A report answered over HTTP, typed, for a renderer other than JSON: the command-line tool
/// gives the server its CSV renderer (`LedgerServer.init(reportCSV:)`), so `?format=csv` is the
/// same CSV as `subledger report ... --format csv`.
public enum ReportDocument: Sendable {
    case revenue(RevenueReport)
    case mrr(MRRReport)
    case mrrSeries(MRRSeriesReport)
    case churn(ChurnReport)
    case cohorts(CohortReport)
}
