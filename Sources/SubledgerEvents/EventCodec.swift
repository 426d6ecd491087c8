import SubledgerCore

/// The compact, versioned binary encoding of events in the log. The byte layout is specified
/// in `docs/event-codec.md`.
///
/// For replay, prefer `EventView`: it reads a record in place without allocating.
public enum EventCodec {
    /// Appends the encoding of `event`, at its type's current version, to `buffer`.
    ///
    /// The encoding is deterministic: equal events give identical bytes.
    public static func encode(_ event: Event, into buffer: inout [UInt8]) {
        let code = event.type.code
        buffer.append(UInt8(truncatingIfNeeded: code))
        buffer.append(UInt8(truncatingIfNeeded: code >> 8))
        buffer.append(event.type.currentVersion)

        let effectiveAt = event.effectiveAt
        var envelope = SectionWriter<EnvelopeField>(startingAt: buffer.count, effectiveAt: effectiveAt)
        buffer.appendZigzag(effectiveAt)
        buffer.appendVarint(event.evidence.position)
        buffer.appendVarint(UInt64(event.evidence.length))
        envelope.text(event.notificationUUID, .notificationUUID, into: &buffer)
        envelope.text(event.notificationType, .notificationType, into: &buffer)
        envelope.text(event.subtype, .subtype, into: &buffer)
        envelope.text(event.environment?.rawValue, .environment, into: &buffer)
        envelope.int(event.status, .status, into: &buffer)
        envelope.text(event.consumptionRequestReason, .consumptionRequestReason, into: &buffer)
        envelope.mark(.transaction, present: event.transaction != nil)
        if let transaction = event.transaction { encode(transaction, effectiveAt: effectiveAt, into: &buffer) }
        envelope.mark(.renewal, present: event.renewal != nil)
        if let renewal = event.renewal { encode(renewal, effectiveAt: effectiveAt, into: &buffer) }
        envelope.mark(.renewalExtensionSummary, present: event.renewalExtensionSummary != nil)
        if let summary = event.renewalExtensionSummary { encode(summary, into: &buffer) }
        envelope.mark(.externalPurchaseToken, present: event.externalPurchaseToken != nil)
        if let token = event.externalPurchaseToken { encode(token, effectiveAt: effectiveAt, into: &buffer) }
        envelope.finish(into: &buffer)
    }

    /// Decodes one encoded event (exactly the bytes of one event), upcast to the current model.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(EventDecodingError) -> Event {
        Event(try EventView(bytes))
    }

    private static func encode(_ t: TransactionFacts, effectiveAt: Int64, into buffer: inout [UInt8]) {
        var fields = SectionWriter<TransactionField>(startingAt: buffer.count, effectiveAt: effectiveAt)
        fields.text(t.transactionId, .transactionId, into: &buffer)
        fields.text(t.originalTransactionId, .originalTransactionId, into: &buffer)
        fields.text(t.webOrderLineItemId, .webOrderLineItemId, into: &buffer)
        fields.text(t.productId, .productId, into: &buffer)
        fields.text(t.subscriptionGroupIdentifier, .subscriptionGroupIdentifier, into: &buffer)
        fields.text(t.type, .type, into: &buffer)
        fields.date(t.purchaseDate, .purchaseDate, into: &buffer)
        fields.date(t.originalPurchaseDate, .originalPurchaseDate, into: &buffer)
        fields.date(t.expiresDate, .expiresDate, into: &buffer)
        fields.date(t.signedDate, .signedDate, into: &buffer)
        fields.int64(t.price, .price, into: &buffer)
        fields.text(t.currency, .currency, into: &buffer)
        fields.text(t.storefront, .storefront, into: &buffer)
        fields.int(t.offerType, .offerType, into: &buffer)
        fields.text(t.offerDiscountType, .offerDiscountType, into: &buffer)
        fields.text(t.offerIdentifier, .offerIdentifier, into: &buffer)
        fields.text(t.offerPeriod, .offerPeriod, into: &buffer)
        fields.text(t.ownership, .ownership, into: &buffer)
        fields.bool(t.isUpgraded, .isUpgraded, into: &buffer)
        fields.date(t.revocationDate, .revocationDate, into: &buffer)
        fields.int(t.revocationReason, .revocationReason, into: &buffer)
        fields.text(t.revocationType, .revocationType, into: &buffer)
        fields.int(t.revocationPercentage, .revocationPercentage, into: &buffer)
        fields.text(t.appAccountToken, .appAccountToken, into: &buffer)
        fields.text(t.transactionReason, .transactionReason, into: &buffer)
        fields.int(t.quantity, .quantity, into: &buffer)
        fields.text(t.billingPlanType, .billingPlanType, into: &buffer)
        fields.mark(.commitment, present: t.commitment != nil)
        if let c = t.commitment {
            var inner = SectionWriter<CommitmentField>(startingAt: buffer.count, effectiveAt: effectiveAt)
            inner.int(c.billingPeriodNumber, .billingPeriodNumber, into: &buffer)
            inner.int(c.totalBillingPeriods, .totalBillingPeriods, into: &buffer)
            inner.date(c.commitmentExpiresDate, .commitmentExpiresDate, into: &buffer)
            inner.int64(c.commitmentPrice, .commitmentPrice, into: &buffer)
            inner.finish(into: &buffer)
        }
        fields.finish(into: &buffer)
    }

    private static func encode(_ r: RenewalFacts, effectiveAt: Int64, into buffer: inout [UInt8]) {
        var fields = SectionWriter<RenewalField>(startingAt: buffer.count, effectiveAt: effectiveAt)
        fields.text(r.originalTransactionId, .originalTransactionId, into: &buffer)
        fields.text(r.productId, .productId, into: &buffer)
        fields.text(r.autoRenewProductId, .autoRenewProductId, into: &buffer)
        fields.int(r.autoRenewStatus, .autoRenewStatus, into: &buffer)
        fields.int(r.expirationIntent, .expirationIntent, into: &buffer)
        fields.bool(r.isInBillingRetryPeriod, .isInBillingRetryPeriod, into: &buffer)
        fields.date(r.gracePeriodExpiresDate, .gracePeriodExpiresDate, into: &buffer)
        fields.int(r.priceIncreaseStatus, .priceIncreaseStatus, into: &buffer)
        fields.int64(r.renewalPrice, .renewalPrice, into: &buffer)
        fields.text(r.currency, .currency, into: &buffer)
        fields.int(r.offerType, .offerType, into: &buffer)
        fields.text(r.offerIdentifier, .offerIdentifier, into: &buffer)
        fields.text(r.offerDiscountType, .offerDiscountType, into: &buffer)
        fields.date(r.signedDate, .signedDate, into: &buffer)
        fields.date(r.renewalDate, .renewalDate, into: &buffer)
        fields.date(r.recentSubscriptionStartDate, .recentSubscriptionStartDate, into: &buffer)
        fields.text(r.renewalBillingPlanType, .renewalBillingPlanType, into: &buffer)
        fields.mark(.commitment, present: r.commitment != nil)
        if let c = r.commitment {
            var inner = SectionWriter<CommitmentRenewalField>(startingAt: buffer.count, effectiveAt: effectiveAt)
            inner.text(c.commitmentAutoRenewProductId, .commitmentAutoRenewProductId, into: &buffer)
            inner.int(c.commitmentAutoRenewStatus, .commitmentAutoRenewStatus, into: &buffer)
            inner.text(c.commitmentRenewalBillingPlanType, .commitmentRenewalBillingPlanType, into: &buffer)
            inner.date(c.commitmentRenewalDate, .commitmentRenewalDate, into: &buffer)
            inner.int64(c.commitmentRenewalPrice, .commitmentRenewalPrice, into: &buffer)
            inner.finish(into: &buffer)
        }
        fields.finish(into: &buffer)
    }

    private static func encode(_ s: RenewalExtensionSummary, into buffer: inout [UInt8]) {
        var fields = SectionWriter<SummaryField>(startingAt: buffer.count, effectiveAt: 0)
        fields.text(s.requestIdentifier, .requestIdentifier, into: &buffer)
        fields.text(s.productId, .productId, into: &buffer)
        fields.int(s.succeededCount, .succeededCount, into: &buffer)
        fields.int(s.failedCount, .failedCount, into: &buffer)
        fields.finish(into: &buffer)
    }

    private static func encode(_ t: ExternalPurchaseTokenFacts, effectiveAt: Int64, into buffer: inout [UInt8]) {
        var fields = SectionWriter<ExternalPurchaseTokenField>(startingAt: buffer.count, effectiveAt: effectiveAt)
        fields.text(t.externalPurchaseId, .externalPurchaseId, into: &buffer)
        fields.date(t.tokenCreationDate, .tokenCreationDate, into: &buffer)
        fields.int64(t.appAppleId, .appAppleId, into: &buffer)
        fields.text(t.bundleId, .bundleId, into: &buffer)
        fields.finish(into: &buffer)
    }
}
