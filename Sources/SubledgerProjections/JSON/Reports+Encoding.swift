import SubledgerCore
import SubledgerLog

// The contract's `report ... --json` documents, members sorted by name (as the first version,
// written with `JSONEncoder`'s sorted keys, printed them). Fields beyond the contract
// (`environment`, `from`, `to`, `by` where the contract shows only `rows`) are additions, never
// renames.

/// A value the commands and routes print as one of the contract's JSON documents.
public protocol JSONDocument: Sendable {
    var json: JSON { get }
}

extension JSON {
    /// An object of `members` sorted by name.
    static func sortedObject(_ members: [(String, JSON)]) -> JSON {
        .object(members.sorted { $0.0 < $1.0 })
    }

    /// The members of an object; none for any other value.
    var members: [(String, JSON)] {
        guard case .object(let members) = self else { return [] }
        return members
    }
}

/// What a report over a range of days says it answers: `from`, `to`, `by`, `environment` and,
/// asked at a position, `atPosition`. Each report lists them beside its own members.
private func rangeMembers(from: UTCDay, to: UTCDay, by: ReportGranularity, environment: String, atPosition: LogPosition?) -> [(String, JSON)] {
    [("from", .string(from.description)), ("to", .string(to.description)), ("by", .string(by.rawValue)), ("environment", .string(environment))]
        + atPositionMember(atPosition)
}

private func atPositionMember(_ position: LogPosition?) -> [(String, JSON)] {
    position.map { [("atPosition", JSON.string($0.description))] } ?? []
}

extension RevenueReport: JSONDocument {
    public var json: JSON {
        .sortedObject(rangeMembers(from: from, to: to, by: by, environment: environment, atPosition: atPosition)
            + [("refunds", .string(refunds.rawValue)), ("rows", .array(rows.map(\.json)))])
    }
}

extension RevenueRow {
    /// `productId` appears only in reports by product.
    var json: JSON {
        .sortedObject([
            ("period", .string(period)), ("currency", .string(currency)), ("grossSales", .integer(grossSales)),
            ("refunds", .integer(refunds)), ("net", .integer(net)), ("proceeds", .integer(proceeds)),
            ("transactions", .int(transactions)), ("refundedTransactions", .int(refundedTransactions)),
        ] + (productId.map { [("productId", JSON.string($0))] } ?? []))
    }
}

extension MRRReport: JSONDocument {
    public var json: JSON {
        .sortedObject([("at", .instant(at)), ("environment", .string(environment)), ("rows", .array(rows.map(\.json)))]
            + atPositionMember(atPosition))
    }
}

extension MRRRow {
    var json: JSON {
        .sortedObject([
            ("currency", .string(currency)), ("mrr", .integer(mrr)), ("arr", .integer(arr)),
            ("activeSubscriptions", .int(activeSubscriptions)), ("activeTrials", .int(activeTrials)),
            ("activeCommitments", .int(activeCommitments)), ("committedRevenueRemaining", .integer(committedRevenueRemaining)),
        ])
    }
}

/// `{"from", "to", "by", "environment", "series": [{"at", "rows"}]}`: each point as `report mrr
/// --json` has its instant and rows, the shape of `expected.json`'s `mrr`.
extension MRRSeriesReport: JSONDocument {
    public var json: JSON {
        let series = points.map { point in JSON.sortedObject([("at", .instant(point.at)), ("rows", .array(point.rows.map(\.json)))]) }
        return .sortedObject(rangeMembers(from: from, to: to, by: by, environment: environment, atPosition: atPosition) + [("series", .array(series))])
    }
}

extension ChurnReport: JSONDocument {
    public var json: JSON {
        .sortedObject(rangeMembers(from: from, to: to, by: by, environment: environment, atPosition: atPosition)
            + (countedThrough.map { [("countedThrough", JSON.string($0.description))] } ?? [])
            + [("rows", .array(rows.map(\.json)))])
    }
}

extension ChurnRow {
    var json: JSON {
        .sortedObject([
            ("period", .string(period)), ("activeAtStart", .int(activeAtStart)), ("newPaid", .int(newPaid)),
            ("churned", .int(churned)), ("churnRate", churnRate.map(JSON.double) ?? .null), ("byReason", byReason.json),
            ("reactivated", .int(reactivated)), ("trialsStarted", .int(trialsStarted)), ("trialsConverted", .int(trialsConverted)),
            ("trialConversionRate", trialConversionRate.map(JSON.double) ?? .null), ("commitmentsStarted", .int(commitmentsStarted)),
            ("commitmentsCompleted", .int(commitmentsCompleted)), ("commitmentsDefaulted", .int(commitmentsDefaulted)),
        ])
    }
}

extension ChurnReasons {
    /// The contract's snake-case names.
    var json: JSON {
        .sortedObject([
            ("voluntary", .int(voluntary)), ("billing_error", .int(billingError)), ("price_increase", .int(priceIncrease)),
            ("product_not_for_sale", .int(productNotForSale)), ("refund", .int(refund)), ("other", .int(other)),
        ])
    }
}

extension CohortReport: JSONDocument {
    public var json: JSON {
        .sortedObject([
            ("from", .string(from.description)), ("to", .string(to.description)), ("environment", .string(environment)),
            ("at", .instant(at)), ("rows", .array(rows.map(\.json))),
        ] + atPositionMember(atPosition))
    }
}

extension CohortRow {
    var json: JSON {
        .sortedObject([("cohort", .string(cohort)), ("size", .int(size)), ("retained", .array(retained.map(JSON.int)))])
    }
}
