/// A report by its name in the API's route and the CLI's `report NAME`.
public enum ReportQuery: Sendable, Equatable {
    case revenue(RevenueQuery)
    case mrr(MRRQuery)
    case churn(ChurnQuery)
    case cohorts(CohortQuery)

    public static let names = ["revenue", "mrr", "churn", "cohorts"]

    /// The filter the report takes, whichever it is.
    public var filter: ReportFilter {
        switch self {
        case .revenue(let query): query.filter
        case .mrr(let query): query.filter
        case .churn(let query): query.filter
        case .cohorts(let query): query.filter
        }
    }

    public init(name: String, _ parameters: some QueryParameterSource, now: Int64) throws(QueryError) {
        switch name {
        case "revenue": self = .revenue(try RevenueQuery(parameters))
        case "mrr": self = .mrr(try MRRQuery(parameters, now: now))
        case "churn": self = .churn(try ChurnQuery(parameters, now: now))
        case "cohorts": self = .cohorts(try CohortQuery(parameters, now: now))
        default: throw QueryError(kind: .notFound, code: "unknown_report", detail: "no report \(name); reports are revenue, mrr, churn and cohorts")
        }
    }
}
