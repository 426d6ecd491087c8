import SubledgerCore
import SubledgerEvents
import SubledgerLedger
import SubledgerProjections

extension HistoryReport: CommandOutput {
    func json() throws -> String { json.serialized() }

    /// By default what a person scans: when, what, product, price and the key detail.
    var tabulation: Tabulation {
        var columns: [Table.Column] = [
            .init("effective", key: "effectiveAt"), .init("event", key: "type", limit: 30), .init("product", key: "productId", limit: 28, cut: .middle),
            .init("price", key: "price"), .init("detail", key: "detail", limit: 56),
            .init("environment", key: "environment", wide: Set(events.map(\.entry.environment)).count < 2),
            .init("position", key: "position", wide: true), .init("recorded", key: "recordedAt", wide: true),
            .init("notification", key: "notificationType", wide: true), .init("subtype", key: "subtype", wide: true),
            .init("notification UUID", key: "notificationUUID", wide: true),
            .init("original transaction", key: "originalTransactionId", wide: true), .init("transaction", key: "transactionId", wide: true),
            .init("currency", key: "currency", wide: true), .init("purchased", key: "purchaseDate", wide: true),
            .init("expires", key: "expiresDate", wide: true), .init("revoked", key: "revocationDate", wide: true),
            .init("offer", key: "offerDiscountType", wide: true), .init("plan", key: "billingPlanType", wide: true),
            .init("auto-renew", key: "autoRenewStatus", wide: true), .init("renews to", key: "autoRenewProductId", wide: true),
            .init("expiration intent", key: "expirationIntent", wide: true),
        ]
        let raw = events.contains { $0.signedPayload != nil }
        if raw { columns.append(.init("signed payload", key: "signedPayload", wide: true)) }
        let rows: [[Cell]] = events.map { item in
            let transaction = item.event.transaction
            let renewal = item.event.renewal
            var cells: [Cell] = [
                .instant(item.entry.effectiveAt), .text(item.entry.type.name), .text(transaction?.productId ?? renewal?.productId),
                .money(transaction?.price, transaction?.currency), .text(item.detail), .text(item.entry.environment),
                .text(item.entry.position.description), .instant(item.entry.recordedAt),
                .text(item.event.notificationType), .text(item.event.subtype), .text(item.event.notificationUUID),
                .text(item.entry.originalTransactionId), .text(item.entry.transactionId),
                .text(transaction?.currency), .instant(transaction?.purchaseDate), .instant(transaction?.expiresDate),
                .instant(transaction?.revocationDate), .text(transaction?.offerDiscountType), .text(transaction?.billingPlanType),
                .flag(renewal?.autoRenewStatus.map { $0 == 1 }), .text(renewal?.autoRenewProductId),
                .text(renewal?.expirationIntent.map(String.init)),
            ]
            if raw { cells.append(.text(item.signedPayload)) }
            return cells
        }
        return Tabulation(facts: [("customer", .text(customerId)), ("events", .count(events.count))], tables: [Table(columns: columns, rows: rows)])
    }
}

extension HistoryReport.Item {
    /// The facts that tell this event from its neighbours: the notification's subtype, the
    /// period's end, a revocation, the auto-renew switch, an offer, a commitment period.
    var detail: String? {
        var parts: [String] = []
        if let subtype = event.subtype { parts.append(subtype) }
        if let transaction = event.transaction {
            // The price column is the price: a prorated refund says what came back, first, so
            // that the column's width never cuts it off.
            if transaction.revocationDate != nil, transaction.revocationType == "REFUND_PRORATED",
               let percentage = transaction.revocationPercentage, let refunded = transaction.refundedAmount {
                parts.append("refunded \(Money(milliunits: refunded, currency: transaction.currency).formatted) (\(Cell.thousandths(percentage)) %)")
            }
            if let expires = transaction.expiresDate { parts.append("until " + UTCInstant.short(expires)) }
            if let revoked = transaction.revocationDate { parts.append("revoked " + UTCInstant.short(revoked)) }
            if let offer = transaction.offerDiscountType { parts.append(offer.lowercased().replacing("_", with: " ")) }
            if let commitment = transaction.commitment, let number = commitment.billingPeriodNumber, let total = commitment.totalBillingPeriods {
                parts.append("commitment \(number)/\(total)")
            }
        }
        if let status = event.renewal?.autoRenewStatus { parts.append(status == 1 ? "auto-renew on" : "auto-renew off") }
        return parts.isEmpty ? nil : parts.joined(separator: ", ")
    }
}
