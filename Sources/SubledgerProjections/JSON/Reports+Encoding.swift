import SubledgerLog
import SubledgerCore

// The contract's `report ... --json` documents. Fields beyond the contract (`environment`,
// `from`, `to`, `by` where the contract shows only `rows`) are additions, never renames.

/// What a report over a range of days says it answers: `from`, `to`, `by`, `environment` and,
/// asked at a position, `atPosition`. Each report encodes it beside its own members.
private struct ReportRange: Encodable {
    var from: UTCDay
    var to: UTCDay
    var by: ReportGranularity
    var environment: String
    var atPosition: LogPosition?

    private enum CodingKeys: String, CodingKey {
        case from, to, by, environment, atPosition
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(from.description, forKey: .from)
        try container.encode(to.description, forKey: .to)
        try container.encode(by, forKey: .by)
        try container.encode(environment, forKey: .environment)
        try container.encodeIfPresent(atPosition?.description, forKey: .atPosition)
    }
}

extension RevenueReport: Encodable {
    private enum CodingKeys: String, CodingKey {
        case refunds, rows
    }

    public func encode(to encoder: any Encoder) throws {
        try ReportRange(from: from, to: to, by: by, environment: environment, atPosition: atPosition).encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(refunds, forKey: .refunds)
        try container.encode(rows, forKey: .rows)
    }
}

extension RevenueRow: Encodable {
    private enum CodingKeys: String, CodingKey {
        case period, currency, productId, grossSales, refunds, net, proceeds, transactions, refundedTransactions
    }

    /// `productId` appears only in reports by product.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(period, forKey: .period)
        try container.encode(currency, forKey: .currency)
        try container.encodeIfPresent(productId, forKey: .productId)
        try container.encode(grossSales, forKey: .grossSales)
        try container.encode(refunds, forKey: .refunds)
        try container.encode(net, forKey: .net)
        try container.encode(proceeds, forKey: .proceeds)
        try container.encode(transactions, forKey: .transactions)
        try container.encode(refundedTransactions, forKey: .refundedTransactions)
    }
}

extension MRRReport: Encodable {
    private enum CodingKeys: String, CodingKey {
        case at, environment, atPosition, rows
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeInstant(at, forKey: .at)
        try container.encode(environment, forKey: .environment)
        try container.encodeIfPresent(atPosition?.description, forKey: .atPosition)
        try container.encode(rows, forKey: .rows)
    }
}

/// `{"from", "to", "by", "environment", "series": [{"at", "rows"}]}`: each point as `report mrr
/// --json` has its instant and rows, the shape of `expected.json`'s `mrr`.
extension MRRSeriesReport: Encodable {
    private enum CodingKeys: String, CodingKey {
        case series
    }

    private struct Point: Encodable {
        var report: MRRReport
        private enum CodingKeys: String, CodingKey { case at, rows }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeInstant(report.at, forKey: .at)
            try container.encode(report.rows, forKey: .rows)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        try ReportRange(from: from, to: to, by: by, environment: environment, atPosition: atPosition).encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(points.map(Point.init), forKey: .series)
    }
}

extension ChurnReport: Encodable {
    private enum CodingKeys: String, CodingKey {
        case countedThrough, rows
    }

    public func encode(to encoder: any Encoder) throws {
        try ReportRange(from: from, to: to, by: by, environment: environment, atPosition: atPosition).encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(countedThrough?.description, forKey: .countedThrough)
        try container.encode(rows, forKey: .rows)
    }
}

extension ChurnRow: Encodable {
    private enum CodingKeys: String, CodingKey {
        case period, activeAtStart, newPaid, churned, churnRate, byReason, reactivated, trialsStarted
        case trialsConverted, trialConversionRate, commitmentsStarted, commitmentsCompleted, commitmentsDefaulted
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(period, forKey: .period)
        try container.encode(activeAtStart, forKey: .activeAtStart)
        try container.encode(newPaid, forKey: .newPaid)
        try container.encode(churned, forKey: .churned)
        try container.encodeOrNull(churnRate, forKey: .churnRate)
        try container.encode(byReason, forKey: .byReason)
        try container.encode(reactivated, forKey: .reactivated)
        try container.encode(trialsStarted, forKey: .trialsStarted)
        try container.encode(trialsConverted, forKey: .trialsConverted)
        try container.encodeOrNull(trialConversionRate, forKey: .trialConversionRate)
        try container.encode(commitmentsStarted, forKey: .commitmentsStarted)
        try container.encode(commitmentsCompleted, forKey: .commitmentsCompleted)
        try container.encode(commitmentsDefaulted, forKey: .commitmentsDefaulted)
    }
}

extension CohortReport: Encodable {
    private enum CodingKeys: String, CodingKey {
        case from, to, environment, at, atPosition, rows
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(from.description, forKey: .from)
        try container.encode(to.description, forKey: .to)
        try container.encode(environment, forKey: .environment)
        try container.encodeInstant(at, forKey: .at)
        try container.encodeIfPresent(atPosition?.description, forKey: .atPosition)
        try container.encode(rows, forKey: .rows)
    }
}

extension KeyedEncodingContainer {
    /// The value, or `null` when absent.
    mutating func encodeOrNull<Value: Encodable>(_ value: Value?, forKey key: Key) throws {
        if let value { try encode(value, forKey: key) } else { try encodeNil(forKey: key) }
    }

    /// An instant as ISO 8601 UTC text, or `null`.
    mutating func encodeInstant(_ instant: Int64?, forKey key: Key) throws {
        try encodeOrNull(instant.map(UTCInstant.iso8601), forKey: key)
    }
}
