import SubledgerCore
import SubledgerLedger
import SubledgerProjections

extension ChurnReport: CommandOutput {
    func json() -> String { json.serialized() }

    var tabulation: Tabulation {
        let columns: [Table.Column] = [
            .init("period", key: "period"), .init("active at start", key: "activeAtStart"), .init("new paid", key: "newPaid"),
            .init("churned", key: "churned"), .init("churn", key: "churnRate"), .init("reactivated", key: "reactivated"),
            .init("voluntary", key: "byReason.voluntary", wide: true), .init("billing", key: "byReason.billing_error", wide: true),
            .init("price rise", key: "byReason.price_increase", wide: true), .init("not for sale", key: "byReason.product_not_for_sale", wide: true),
            .init("refund", key: "byReason.refund", wide: true), .init("other", key: "byReason.other", wide: true),
            .init("trials", key: "trialsStarted"), .init("converted", key: "trialsConverted"), .init("conversion", key: "trialConversionRate"),
            .init("commitments", key: "commitmentsStarted", wide: true), .init("completed", key: "commitmentsCompleted", wide: true),
            .init("defaulted", key: "commitmentsDefaulted", wide: true),
        ]
        let rows: [[Cell]] = rows.map { row in
            let reasons = row.byReason
            return [
                .text(row.period), .count(row.activeAtStart), .count(row.newPaid), .count(row.churned), .rate(row.churnRate), .count(row.reactivated),
                .count(reasons.voluntary), .count(reasons.billingError), .count(reasons.priceIncrease), .count(reasons.productNotForSale),
                .count(reasons.refund), .count(reasons.other),
                .count(row.trialsStarted), .count(row.trialsConverted), .rate(row.trialConversionRate),
                .count(row.commitmentsStarted), .count(row.commitmentsCompleted), .count(row.commitmentsDefaulted),
            ]
        }
        return Tabulation(
            facts: [("churn", .text("\(from) to \(to) by \(by.rawValue)")), ("environment", .text(environment))]
                + (countedThrough.map { [("counted through", .text($0.description))] } ?? []) + Tabulation.asOf(atPosition),
            tables: [Table(columns: columns, rows: rows)], notes: cutNotes)
    }

    /// Where the rows begin later or end earlier than asked, why: a report from 2010 on a ledger
    /// that begins in 2016 starts at 2016 without a word otherwise.
    private var cutNotes: [String] {
        let (first, last) = by == .month ? (String(from.description.prefix(7)), String(to.description.prefix(7))) : (from.description, to.description)
        guard let firstRow = rows.first?.period, let lastRow = rows.last?.period else {
            return ["no period from \(first) to \(last) has anything in it: none had a subscription active at its start, started, ended or returned, or all are from today on"]
        }
        return (firstRow > first ? ["the rows start at \(firstRow): no period before it had a subscription active at its start, started, ended or returned"] : [])
            + (lastRow < last ? ["the rows end at \(lastRow): periods from today on are left out, as are periods with nothing in them"] : [])
    }
}
