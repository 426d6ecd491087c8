import SubledgerCore
import SubledgerEvents
import SubledgerProjections

/// The contract's `history --json` document, members in the contract's order.
extension HistoryReport {
    public var json: JSON {
        .object([("customerId", .string(customerId)), ("events", .array(events.map(\.json)))])
    }
}

extension HistoryReport.Item {
    var json: JSON {
        var members: [(String, JSON)] = [
            ("position", .string(entry.position.description)),
            ("recordedAt", .string(UTCInstant.iso8601(entry.recordedAt))),
            ("effectiveAt", .string(UTCInstant.iso8601(entry.effectiveAt))),
            ("type", .string(entry.type.name)),
            ("notificationType", .optional(event.notificationType)),
            ("subtype", .optional(event.subtype)),
            ("notificationUUID", .optional(event.notificationUUID)),
            ("originalTransactionId", .string(entry.originalTransactionId)),
            ("transactionId", .optional(entry.transactionId)),
            ("details", Self.details(event)),
        ]
        if let signedPayload { members.append(("signedPayload", .string(signedPayload))) }
        return .object(members)
    }

    /// The facts of an event that a reader of its history wants.
    static func details(_ event: Event) -> JSON {
        var members: [(String, JSON)] = []
        if let status = event.status { members.append(("status", .int(status))) }
        if let transaction = event.transaction {
            members.append(("productId", .optional(transaction.productId)))
            if let price = transaction.price { members.append(("price", .int(price))) }
            members.append(("currency", .optional(transaction.currency)))
            if let purchase = transaction.purchaseDate { members.append(("purchaseDate", .string(UTCInstant.iso8601(purchase)))) }
            if let expires = transaction.expiresDate { members.append(("expiresDate", .string(UTCInstant.iso8601(expires)))) }
            if let revoked = transaction.revocationDate {
                members.append(("revocationDate", .string(UTCInstant.iso8601(revoked))))
                // What tells a partial refund (and how much of the price) from a full one.
                members.append(("revocationType", .optional(transaction.revocationType)))
                if let percentage = transaction.revocationPercentage { members.append(("revocationPercentage", .int(Int64(percentage)))) }
            }
            if let offer = transaction.offerDiscountType { members.append(("offerDiscountType", .string(offer))) }
            if let plan = transaction.billingPlanType { members.append(("billingPlanType", .string(plan))) }
            if let commitment = transaction.commitment, let number = commitment.billingPeriodNumber, let total = commitment.totalBillingPeriods {
                members.append(("commitmentPeriod", .string("\(number)/\(total)")))
            }
        }
        if let renewal = event.renewal {
            if let status = renewal.autoRenewStatus { members.append(("autoRenewStatus", .int(status))) }
            members.append(("autoRenewProductId", .optional(renewal.autoRenewProductId)))
            if let intent = renewal.expirationIntent { members.append(("expirationIntent", .int(intent))) }
        }
        return .object(members)
    }
}
