/// `report revenue` / `GET /v1/reports/revenue`: sales, refunds, net and proceeds per period
/// and currency.
public struct RevenueQuery: Sendable, Equatable {
    public var from: UTCDay
    public var to: UTCDay
    public var by: ReportGranularity
    public var byProduct: Bool
    public var refunds: RefundConvention
    public var filter: ReportFilter

    public init(from: UTCDay, to: UTCDay, by: ReportGranularity = .month, byProduct: Bool = false, refunds: RefundConvention = .refundDate, filter: ReportFilter = ReportFilter()) {
        self.from = from
        self.to = to
        self.by = by
        self.byProduct = byProduct
        self.refunds = refunds
        self.filter = filter
    }

    /// `from`, `to` (required days), `by`, `byProduct`, `refunds`, `environment`, `atPosition`.
    public init(_ parameters: some QueryParameterSource) throws(QueryError) {
        let filter = try ReportFilter(parameters)
        let by = try parameters.granularity()
        var refunds = RefundConvention.refundDate
        if let text = parameters.value("refunds") {
            guard let convention = RefundConvention(rawValue: text) else {
                throw QueryError(kind: .badParameter, code: "invalid_refunds", detail: "\(parameters.spelling("refunds")) is refund-date or original, not \(text)")
            }
            refunds = convention
        }
        let (from, to) = (try parameters.day("from"), try parameters.day("to"))
        try parameters.requireOrdered(from: from, to: to)
        try parameters.requireSpan(from: from, to: to, by: by)
        self.init(from: from, to: to, by: by, byProduct: try parameters.isOn("byProduct"), refunds: refunds, filter: filter)
    }
}
