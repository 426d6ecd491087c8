import SubledgerEvents

/// Turns verified, decoded App Store payloads into domain events.
///
/// The mapping copies every fact the ``Event`` model has from the payloads, verbatim: Apple's
/// enumerations become their raw values, so values Apple adds later are kept, and it never
/// fails. It does not check that the payloads belong together or that they were verified; the
/// caller passes the payloads decoded from one verified message.
public enum EventMapping {
    /// The event for a notification.
    ///
    /// The type comes from `EventType.classify`: the raw `notificationType` and `subtype`, and
    /// whether `transaction` is a monthly-billed renewal inside a 12-month commitment
    /// (`billingPlanType` MONTHLY with `commitmentInfo`). A notification type this build does not
    /// know gives `.unrecognizedNotification` with its raw type and subtype kept.
    ///
    /// The environment is the one the notification states: in `data`, `summary`, the external
    /// purchase token (by its `SANDBOX` id prefix) or `appData`, whichever it carries; failing
    /// those, the nested transaction's or renewal info's.
    ///
    /// `effectiveAt` is ``effectiveAt(notification:transaction:renewal:)``: the notification's
    /// `signedDate`, or the nested payloads' when the notification has none (some early-2022
    /// notifications); see `docs/ingestion.md`, "Messages without signedDate".
    ///
    /// - Parameters:
    ///   - notification: the decoded `signedPayload`.
    ///   - transaction: the decoded `data.signedTransactionInfo`, if the notification has one.
    ///   - renewal: the decoded `data.signedRenewalInfo`, if the notification has one.
    ///   - evidence: where the verbatim signed message is stored.
    public static func event(
        notification: NotificationPayload, transaction: TransactionPayload?, renewal: RenewalInfoPayload?,
        evidence: EvidenceRef
    ) -> Event {
        let isMonthlyCommitmentRenewal = transaction?.billingPlanType == .monthly && transaction?.commitmentInfo != nil
        let type = EventType.classify(
            notificationType: notification.notificationType?.rawValue ?? "",
            subtype: notification.subtype?.rawValue,
            isMonthlyCommitmentRenewal: isMonthlyCommitmentRenewal)
        let statedEnvironment = environment(notification: notification, transaction: transaction, renewal: renewal)
        return Event(
            type: type,
            effectiveAt: effectiveAt(notification: notification, transaction: transaction, renewal: renewal),
            evidence: evidence,
            notificationUUID: notification.notificationUUID,
            notificationType: notification.notificationType?.rawValue,
            subtype: notification.subtype?.rawValue,
            environment: statedEnvironment,
            status: notification.data?.status?.rawValue,
            consumptionRequestReason: notification.data?.consumptionRequestReason?.rawValue,
            transaction: transaction.map(TransactionFacts.init),
            renewal: renewal.map(RenewalFacts.init),
            renewalExtensionSummary: notification.summary.map(RenewalExtensionSummary.init),
            externalPurchaseToken: notification.externalPurchaseToken.map(ExternalPurchaseTokenFacts.init))
    }

    /// The event for a bare signed transaction fed from transaction history: a
    /// `.transactionBackfilled` event at the transaction's `signedDate` (0 if it has none), in
    /// the transaction's environment, with no notification fields.
    public static func event(backfilled transaction: TransactionPayload, evidence: EvidenceRef) -> Event {
        Event(
            type: .transactionBackfilled,
            effectiveAt: transaction.signedDate ?? 0,
            evidence: evidence,
            environment: transaction.environment,
            transaction: TransactionFacts(transaction))
    }

    /// The event for a bare signed renewal info fed from Get All Subscription Statuses: a
    /// `.renewalInfoBackfilled` event at the renewal info's `signedDate` (0 if it has none), in
    /// its environment, with no notification fields.
    public static func event(backfilled renewal: RenewalInfoPayload, evidence: EvidenceRef) -> Event {
        Event(
            type: .renewalInfoBackfilled,
            effectiveAt: renewal.signedDate ?? 0,
            evidence: evidence,
            environment: renewal.environment,
            renewal: RenewalFacts(renewal))
    }

    /// The environment a notification states: in `data`, `summary`, the external purchase token
    /// or `appData`, whichever it carries; failing those, the nested transaction's or renewal
    /// info's. Ingestion checks it against the ledger's environments, so it must be this one.
    public static func environment(
        notification: NotificationPayload, transaction: TransactionPayload?, renewal: RenewalInfoPayload?
    ) -> AppStoreEnvironment? {
        notification.data?.environment ?? notification.summary?.environment
            ?? notification.externalPurchaseToken.map(environment(of:)) ?? notification.appData?.environment
            ?? transaction?.environment ?? renewal?.environment
    }

    /// The app a notification names, wherever its type puts it: `data`, `summary`, the external
    /// purchase token or `appData`. Ingestion checks it against the ledger's, so it must be this.
    public static func app(of notification: NotificationPayload) -> (bundleId: String?, appAppleId: Int64?) {
        (
            notification.data?.bundleId ?? notification.summary?.bundleId
                ?? notification.externalPurchaseToken?.bundleId ?? notification.appData?.bundleId,
            notification.data?.appAppleId ?? notification.summary?.appAppleId
                ?? notification.externalPurchaseToken?.appAppleId ?? notification.appData?.appAppleId
        )
    }

    /// Whether the notification has a container `app(of:)` reads its app from: one of a type
    /// this version does not know may put it elsewhere.
    public static func hasAppContainer(_ notification: NotificationPayload) -> Bool {
        notification.data != nil || notification.summary != nil || notification.externalPurchaseToken != nil || notification.appData != nil
    }

    /// An external purchase token has no `environment`; as Apple's libraries do, a token whose
    /// `externalPurchaseId` starts with `SANDBOX` is a sandbox token, any other a production one.
    private static func environment(of token: ExternalPurchaseToken) -> AppStoreEnvironment {
        token.externalPurchaseId?.hasPrefix("SANDBOX") == true ? .sandbox : .production
    }

    /// The signed instant that orders a notification's event, in epoch milliseconds: the
    /// notification's `signedDate`; when it has none (a real early-2022 DID_RENEW has none), the
    /// nested transaction's `signedDate`, else the nested renewal info's, else 0.
    ///
    /// The nested payloads are signed together with the notification (in the conformance corpus
    /// within 1.6 s of its `signedDate`, usually a few milliseconds), so their date is the
    /// closest signed stand-in; the transaction comes first because it is the fact the
    /// notification reports. Use the same instant to check certificate validity, so ordering and
    /// verification agree.
    public static func effectiveAt(
        notification: NotificationPayload, transaction: TransactionPayload?, renewal: RenewalInfoPayload?
    ) -> Int64 {
        notification.signedDate ?? transaction?.signedDate ?? renewal?.signedDate ?? 0
    }
}

extension RenewalExtensionSummary {
    init(_ summary: NotificationSummary) {
        self.init(
            requestIdentifier: summary.requestIdentifier,
            productId: summary.productId,
            succeededCount: summary.succeededCount.map { Int($0) },
            failedCount: summary.failedCount.map { Int($0) })
    }
}

extension ExternalPurchaseTokenFacts {
    init(_ token: ExternalPurchaseToken) {
        self.init(
            externalPurchaseId: token.externalPurchaseId,
            tokenCreationDate: token.tokenCreationDate,
            appAppleId: token.appAppleId,
            bundleId: token.bundleId)
    }
}
