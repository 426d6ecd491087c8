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
            // As `events` says it: a customer's history may hold a tester's Sandbox events.
            ("environment", .optional(event.environment?.rawValue)),
            ("originalTransactionId", .string(entry.originalTransactionId)),
            ("transactionId", .optional(entry.transactionId)),
            ("details", Self.details(event)),
        ]
        if let signedPayload { members.append(("signedPayload", .string(signedPayload))) }
        return .object(members)
    }

    /// The facts of an event that a reader of its history wants: whatever the event holds
    /// beyond its envelope, so no fact needs its signed payload decoded by hand.
    static func details(_ event: Event) -> JSON {
        var members: [(String, JSON)] = []
        if let status = event.status { members.append(("status", .int(status))) }
        // The App Store asks for consumption information within 12 hours: why it asks.
        if let reason = event.consumptionRequestReason { members.append(("consumptionRequestReason", .string(reason))) }
        if let summary = event.renewalExtensionSummary {
            members.append(("requestIdentifier", .optional(summary.requestIdentifier)))
            members.append(("productId", .optional(summary.productId)))
            if let succeeded = summary.succeededCount { members.append(("succeededCount", .int(Int64(succeeded)))) }
            if let failed = summary.failedCount { members.append(("failedCount", .int(Int64(failed)))) }
        }
        if let token = event.externalPurchaseToken {
            members.append(("externalPurchaseId", .optional(token.externalPurchaseId)))
            if let created = token.tokenCreationDate { members.append(("tokenCreationDate", .string(UTCInstant.iso8601(created)))) }
        }
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
                // What stands refunded once this refund is granted: a reader need not prorate by hand.
                if event.type == .refunded, let refunded = transaction.refundedAmount { members.append(("refundedAmount", .int(refunded))) }
                if let reason = transaction.revocationReason { members.append(("revocationReason", .int(Int64(reason)))) }
            }
            if let offer = transaction.offerType { members.append(("offerType", .int(Int64(offer)))) }
            if let offer = transaction.offerIdentifier { members.append(("offerIdentifier", .string(offer))) }
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
            if let retrying = renewal.isInBillingRetryPeriod { members.append(("isInBillingRetryPeriod", .bool(retrying))) }
            if let grace = renewal.gracePeriodExpiresDate { members.append(("gracePeriodExpiresDate", .string(UTCInstant.iso8601(grace)))) }
            if let status = renewal.priceIncreaseStatus { members.append(("priceIncreaseStatus", .int(status))) }
            if let price = renewal.renewalPrice { members.append(("renewalPrice", .int(price))) }
            // A commitment whose own renewal is off ends at its last period, auto-renew on or not.
            if let commitment = renewal.commitment {
                if let status = commitment.commitmentAutoRenewStatus { members.append(("commitmentAutoRenewStatus", .int(status))) }
                if let price = commitment.commitmentRenewalPrice { members.append(("commitmentRenewalPrice", .int(price))) }
            }
        }
        return .object(members)
    }
}
