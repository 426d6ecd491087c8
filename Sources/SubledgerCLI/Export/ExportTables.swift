import SubledgerEvents
import SubledgerLog
import SubledgerProjections

/// An event as `export` writes it: its place in the log, when it was recorded, the event.
struct ExportedEvent {
    var position: LogPosition
    var recordedAt: Int64
    var event: Event
}

/// A subscription's state at the end of the export window, with its customer.
struct ExportedSubscription {
    var customerId: String
    var state: SubscriptionState
}

/// The three exported files and their columns.
enum ExportTables {
    static let transactions = ExportTable<ExportedTransaction>(
        name: "transactions",
        summary: "One row per transaction purchased, refunded, refund-reversed or revoked in the window, at its latest signed version (as reports count it), in every environment.",
        columns: [
            .init("transaction_id", "TEXT", "Apple's `transactionId`", { .text($0.transactionId) }),
            .init("original_transaction_id", "TEXT", "the subscription's (or purchase's) `originalTransactionId`", { .text($0.originalTransactionId) }),
            .init("customer_id", "TEXT", "the customer: the lowercase `appAccountToken`, else the `originalTransactionId` (as `customer`)", { .text($0.customerId) }),
            .init("environment", "TEXT", "`Production`, `Sandbox`, ...", { .text($0.environment) }),
            .init("product_id", "TEXT", "`productId`", { .text($0.productId) }),
            .init("subscription_group_id", "TEXT", "`subscriptionGroupIdentifier`", { .text($0.subscriptionGroupId) }),
            .init("type", "TEXT", "Apple's `type` (`Auto-Renewable Subscription`, `Consumable`, ...)", { .text($0.type) }),
            .init("ownership", "TEXT", "`inAppOwnershipType`: `PURCHASED` or `FAMILY_SHARED` (family-shared copies are never revenue)", { .text($0.ownership) }),
            .init("storefront", "TEXT", "`storefront` (ISO 3166-1 alpha-3)", { .text($0.storefront) }),
            .init("currency", "TEXT", "`currency` (ISO 4217)", { .text($0.currency) }),
            .init("price", "BIGINT", "`price` in milliunits of `currency`; revenue when > 0 and not family-shared", { .integer($0.price) }),
            .init("purchase_date", "TIMESTAMP", "`purchaseDate`: when the sale is booked", { .instant($0.purchaseDate) }),
            .init("original_purchase_date", "TIMESTAMP", "`originalPurchaseDate`", { .instant($0.originalPurchaseDate) }),
            .init("expires_date", "TIMESTAMP", "`expiresDate` (subscriptions)", { .instant($0.expiresDate) }),
            .init("offer_type", "INTEGER", "`offerType`: 1 introductory, 2 promotional, 3 offer code, 4 win-back", { .integer($0.offerType) }),
            .init("offer_discount_type", "TEXT", "`offerDiscountType`: `FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`, ...", { .text($0.offerDiscountType) }),
            .init("offer_period", "TEXT", "`offerPeriod` (ISO 8601 duration)", { .text($0.offerPeriod) }),
            .init("billing_plan_type", "TEXT", "`billingPlanType`: `BILLED_UPFRONT` or `MONTHLY` (12-month commitment)", { .text($0.billingPlanType) }),
            .init("is_upgraded", "BOOLEAN", "`isUpgraded`: ended early by an upgrade (not a refund)", { .flag($0.isUpgraded) }),
            .init("revocation_date", "TIMESTAMP", "`revocationDate` of the latest version (refunds and family revokes)", { .instant($0.revocationDate) }),
            .init("revocation_type", "TEXT", "`revocationType`: `REFUND_FULL`, `REFUND_PRORATED` or `FAMILY_REVOKE`", { .text($0.revocationType) }),
            .init("revocation_percentage", "INTEGER", "`revocationPercentage` in thousandths of a percent (50000 = 50 %)", { .integer($0.revocationPercentage) }),
            .init("refund_date", "TIMESTAMP", "when the last refund was granted (its `revocationDate`); never a family revoke. Refunds are booked in this period", { .instant($0.refundDate) }),
            .init("refund_amount", "BIGINT", "all that stands refunded, in milliunits: the price, or `price × revocation_percentage / 100000` rounded half away from zero (a prorated refund topped up to a full one is one refund here, dated by the last; `report revenue` books each part at its own date)", { .integer($0.refundAmount) }),
            .init("refund_reversed_date", "TIMESTAMP", "when that refund was reversed (REFUND_REVERSED), which books it back as a negative refund in this period", { .instant($0.refundReversedDate) }),
        ])

    static let subscriptions = ExportTable<ExportedSubscription>(
        name: "subscriptions",
        summary: "One row per subscription purchased by the end of `--to`, in its state at the last millisecond of that day (as `customer --as-of DAYT23:59:59.999Z`: one that expires at midnight is still active; `report mrr --at` the next day counts it expired), in every environment.",
        columns: [
            .init("customer_id", "TEXT", "the customer (as in `transactions`)", { .text($0.customerId) }),
            .init("original_transaction_id", "TEXT", "the subscription's `originalTransactionId`", { .text($0.state.originalTransactionId) }),
            .init("environment", "TEXT", "`Production`, `Sandbox`, ...", { .text($0.state.environment) }),
            .init("product_id", "TEXT", "the current transaction's product", { .text($0.state.productId) }),
            .init("subscription_group_id", "TEXT", "its subscription group", { .text($0.state.subscriptionGroupId) }),
            .init("status", "TEXT", "`active`, `grace_period`, `billing_retry`, `expired` or `revoked`", { .text($0.state.status.rawValue) }),
            .init("entitled", "BOOLEAN", "true exactly when `status` is `active` or `grace_period`", { .flag($0.state.entitled) }),
            .init("period_type", "TEXT", "`trial`, `intro`, `offer` or `normal`", { .text($0.state.periodType.rawValue) }),
            .init("expires_at", "TIMESTAMP", "the current period's end", { .instant($0.state.expiresAt) }),
            .init("grace_period_expires_at", "TIMESTAMP", "the billing grace period's end, while in one", { .instant($0.state.gracePeriodExpiresAt) }),
            .init("auto_renew", "BOOLEAN", "the latest renewal info's auto-renew status", { .flag($0.state.autoRenew) }),
            .init("auto_renew_product_id", "TEXT", "the product it renews to", { .text($0.state.autoRenewProductId) }),
            .init("expiration_reason", "TEXT", "`voluntary`, `billing_error`, `price_increase`, `product_not_for_sale` or `other`, once ended", { .text($0.state.expirationReason?.rawValue) }),
            .init("revocation", "TEXT", "`refund` or `family_revoke` when revoked", { .text($0.state.revocation?.rawValue) }),
            .init("revoked_at", "TIMESTAMP", "when it was revoked", { .instant($0.state.revokedAt) }),
            .init("price_increase", "TEXT", "the latest PRICE_INCREASE subtype: `pending` or `accepted`", { .text($0.state.priceIncrease?.rawValue) }),
            .init("billing_plan", "TEXT", "`upfront` or `monthly_commitment`", { .text($0.state.billingPlan.rawValue) }),
            .init("commitment_period", "INTEGER", "the commitment's billing period number", { .integer($0.state.commitment?.billingPeriodNumber) }),
            .init("commitment_periods", "INTEGER", "the commitment's total billing periods", { .integer($0.state.commitment?.totalBillingPeriods) }),
            .init("ownership", "TEXT", "`purchased` or `family_shared`", { .text($0.state.ownership.rawValue) }),
            .init("last_transaction_id", "TEXT", "the current transaction", { .text($0.state.lastTransactionId) }),
            .init("price", "BIGINT", "the current transaction's price in milliunits", { .integer($0.state.price) }),
            .init("currency", "TEXT", "its currency", { .text($0.state.currency) }),
            .init("storefront", "TEXT", "its storefront", { .text($0.state.storefront) }),
            .init("first_purchase_at", "TIMESTAMP", "when the subscription was first bought", { .instant($0.state.firstPurchaseAt) }),
            .init("paid_periods", "INTEGER", "paid periods so far (free trials and fully refunded periods not counted)", { .integer($0.state.paidPeriods) }),
        ])

    static let events = ExportTable<ExportedEvent>(
        name: "events",
        summary: "One row per event effective in the window, in log order (as `events`), in every environment. `position` joins it to `history` and `events`.",
        columns: [
            .init("position", "BIGINT", "the event's log position: its identity and log order", { .integer(Int64(bitPattern: $0.position.rawValue)) }),
            .init("recorded_at", "TIMESTAMP", "when the ledger recorded it (arrival; never used for state)", { .instant($0.recordedAt) }),
            .init("effective_at", "TIMESTAMP", "the signed instant that orders it (`signedDate`)", { .instant($0.event.effectiveAt) }),
            .init("type", "TEXT", "the domain event type (Events/ has one page per type)", { .text($0.event.type.name) }),
            .init("notification_type", "TEXT", "Apple's `notificationType`, verbatim", { .text($0.event.notificationType) }),
            .init("subtype", "TEXT", "Apple's `subtype`, verbatim", { .text($0.event.subtype) }),
            .init("notification_uuid", "TEXT", "`notificationUUID`", { .text($0.event.notificationUUID) }),
            .init("environment", "TEXT", "`Production`, `Sandbox`, ...", { .text($0.event.environment?.rawValue) }),
            .init("original_transaction_id", "TEXT", "the transaction's `originalTransactionId`", { .text($0.event.transaction?.originalTransactionId ?? $0.event.renewal?.originalTransactionId) }),
            .init("transaction_id", "TEXT", "`transactionId`", { .text($0.event.transaction?.transactionId) }),
            .init("product_id", "TEXT", "`productId`", { .text($0.event.transaction?.productId ?? $0.event.renewal?.productId) }),
            .init("price", "BIGINT", "the transaction's `price` in milliunits", { .integer($0.event.transaction?.price) }),
            .init("currency", "TEXT", "its `currency`", { .text($0.event.transaction?.currency) }),
            .init("purchase_date", "TIMESTAMP", "`purchaseDate`", { .instant($0.event.transaction?.purchaseDate) }),
            .init("expires_date", "TIMESTAMP", "`expiresDate`", { .instant($0.event.transaction?.expiresDate) }),
            .init("revocation_date", "TIMESTAMP", "`revocationDate`", { .instant($0.event.transaction?.revocationDate) }),
            .init("revocation_type", "TEXT", "`revocationType`", { .text($0.event.transaction?.revocationType) }),
            .init("offer_discount_type", "TEXT", "`offerDiscountType`", { .text($0.event.transaction?.offerDiscountType) }),
            .init("auto_renew_status", "INTEGER", "the renewal info's `autoRenewStatus`: 1 on, 0 off", { .integer($0.event.renewal?.autoRenewStatus) }),
            .init("auto_renew_product_id", "TEXT", "`autoRenewProductId`", { .text($0.event.renewal?.autoRenewProductId) }),
            .init("expiration_intent", "INTEGER", "`expirationIntent`: 1 cancelled, 2 billing error, 3 price increase declined, 4 product unavailable, 5 other", { .integer($0.event.renewal?.expirationIntent) }),
            .init("status", "INTEGER", "`data.status`: 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked", { .integer($0.event.status) }),
            .init("evidence_position", "BIGINT", "where the verbatim signed message is in the evidence log (`history --raw` and `events --raw` print the message itself)", { .integer(Int64(bitPattern: $0.event.evidence.position)) }),
        ])
}
