import SubledgerCore
import SubledgerLedger
import SubledgerProjections

extension ChurnReport: CommandOutput {
    func json() throws -> String { try JSON.document(self) }

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
        return Tabulation(facts: [("churn", .text("\(from) to \(to) by \(by.rawValue)")), ("environment", .text(environment))] + Tabulation.asOf(atPosition), tables: [Table(columns: columns, rows: rows)])
    }
}
