import SubledgerCore
import SubledgerLedger
import SubledgerProjections

extension CustomerState: CommandOutput {
    func json() throws -> String { json.serialized() }

    var tabulation: Tabulation {
        // A tester's Sandbox subscription beside the real one read as the same row: with two
        // environments, the column is shown by default.
        let oneEnvironment = Set(self.subscriptions.map(\.environment) + purchases.map(\.environment)).count < 2
        let subscriptions = Table(
            title: "subscriptions",
            columns: [
                .init("subscription", key: "originalTransactionId"), .init("product", key: "productId", limit: 28, cut: .middle),
                .init("group", key: "subscriptionGroupId", wide: true), .init("environment", key: "environment", wide: oneEnvironment),
                .init("status", key: "status"), .init("entitled", key: "entitled", wide: true), .init("period", key: "periodType"),
                .init("expires", key: "expiresAt"), .init("grace until", key: "gracePeriodExpiresAt", wide: true),
                .init("auto-renew", key: "autoRenew"), .init("renews to", key: "autoRenewProductId", wide: true),
                .init("expiry reason", key: "expirationReason", wide: true), .init("revocation", key: "revocation", wide: true),
                .init("revoked", key: "revokedAt", wide: true), .init("price increase", key: "priceIncrease", wide: true),
                .init("price", key: "price"), .init("currency", key: "currency", wide: true), .init("plan", key: "billingPlan"),
                .init("commitment", key: "commitment", wide: true), .init("ownership", key: "ownership", wide: true),
                .init("last transaction", key: "lastTransactionId", wide: true), .init("last event", key: "lastEventPosition"),
                .init("its transaction's event", key: "lastTransactionEventPosition"), .init("storefront", key: "storefront", wide: true),
                .init("first purchase", key: "firstPurchaseAt", wide: true), .init("paid periods", key: "paidPeriods", wide: true),
            ],
            rows: subscriptions.map { subscription in
                let commitment = subscription.commitment.map { "\($0.billingPeriodNumber.map(String.init) ?? "?")/\($0.totalBillingPeriods.map(String.init) ?? "?")" }
                return [
                    .text(subscription.originalTransactionId), .text(subscription.productId), .text(subscription.subscriptionGroupId),
                    .text(subscription.environment),
                    .text(subscription.status.rawValue + (subscription.expirationReason.map { " (\($0.rawValue))" } ?? "")),
                    .flag(subscription.entitled), .text(subscription.periodType.rawValue), .instant(subscription.expiresAt),
                    .instant(subscription.gracePeriodExpiresAt), .flag(subscription.autoRenew), .text(subscription.autoRenewProductId),
                    .text(subscription.expirationReason?.rawValue), .text(subscription.revocation?.rawValue), .instant(subscription.revokedAt),
                    .text(subscription.priceIncrease?.rawValue), .money(subscription.price, subscription.currency), .text(subscription.currency),
                    .text(subscription.billingPlan.rawValue), .text(commitment), .text(subscription.ownership.rawValue),
                    .text(subscription.lastTransactionId), .text(subscription.lastEventPosition?.description),
                    .text(subscription.lastTransactionEventPosition?.description), .text(subscription.storefront),
                    .instant(subscription.firstPurchaseAt),
                    .count(subscription.paidPeriods),
                ]
            })
        var tables = [subscriptions]
        if !purchases.isEmpty {
            tables.append(Table(
                title: "purchases",
                columns: [
                    .init("transaction", key: "transactionId"), .init("product", key: "productId", limit: 28, cut: .middle), .init("type", key: "type"),
                    .init("environment", key: "environment", wide: oneEnvironment), .init("purchased", key: "purchasedAt"), .init("price", key: "price"), .init("currency", key: "currency", wide: true),
                    .init("refunded", key: "refunded"), .init("last event", key: "lastEventPosition"),
                ],
                rows: purchases.map { purchase in
                    [.text(purchase.transactionId), .text(purchase.productId), .text(purchase.type), .text(purchase.environment), .instant(purchase.purchasedAt),
                     .money(purchase.price, purchase.currency), .text(purchase.currency), .flag(purchase.refunded),
                     .text(purchase.lastEventPosition?.description)]
                }))
        }
        // Asked for with `--evidence`; else a column of nothing.
        let evidence = self.subscriptions.contains { $0.lastEventPosition != nil } || purchases.contains { $0.lastEventPosition != nil }
        if !evidence { tables = tables.map { $0.removing("lastEventPosition").removing("lastTransactionEventPosition") } }
        return Tabulation(
            facts: [("customer", .text(customerId)), ("as of", .instant(asOf))] + Tabulation.asOf(atPosition)
                + [("environment", .text(environment)), ("entitlements", .text(entitlements.isEmpty ? "none" : entitlements.joined(separator: ", ")))],
            tables: tables)
    }
}
