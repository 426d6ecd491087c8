import SubledgerAppStore

/// A family member with access to the purchaser's subscription through Family Sharing: their
/// own original transaction, FAMILY_SHARED copies of the purchaser's transactions, no
/// `appAccountToken` (so their customer id is their original transaction id), never revenue.
struct FamilyMember {
    var originalTransactionId: String
    var originalPurchaseDate: Int64
    var appTransactionId: String
    /// The purchaser's transaction the current copy mirrors, and the copy's identifiers.
    var ownerTransactionId: String
    var identifiers: (transactionId: String, webOrderLineItemId: String)
    var transaction = TransactionPayload()
    var renewalInfo = RenewalInfoPayload()
    var phase = Phase.active
    var priceIncrease: NotificationSubtype?
    var revoked = false
    var lastInstant: Int64

    var final: FinalSubscription {
        FinalSubscription(customerId: originalTransactionId, transaction: transaction, renewalInfo: renewalInfo,
                          phase: phase, priceIncrease: priceIncrease)
    }
}

extension CustomerSimulation {
    /// Notification types the family member receives a copy of; refund traffic stays with the
    /// purchaser (a refund reaches the member as REVOKE).
    static let familyNotificationTypes: Set<NotificationType> = [
        .subscribed, .didRenew, .didChangeRenewalStatus, .didChangeRenewalPref, .didFailToRenew,
        .gracePeriodExpired, .expired, .renewalExtended, .priceIncrease,
    ]

    func startFamilySharing(at instant: Int64) {
        let identifiers = nextIdentifiers()
        member = FamilyMember(originalTransactionId: identifiers.transactionId, originalPurchaseDate: instant,
                              appTransactionId: String(705_000_000_000_000_000 + Int64(index) * 2 + 1),
                              ownerTransactionId: transaction.transactionId ?? "", identifiers: identifiers, lastInstant: instant)
    }

    /// Sends the member the same notification about their copy of the current transaction.
    func mirrorToFamily(_ type: NotificationType, _ subtype: NotificationSubtype?, at instant: Int64) {
        guard var member, !member.revoked, Self.familyNotificationTypes.contains(type) else { return }
        if member.ownerTransactionId != transaction.transactionId {
            member.ownerTransactionId = transaction.transactionId ?? ""
            member.identifiers = nextIdentifiers()
        }
        var copy = transaction
        copy.transactionId = member.identifiers.transactionId
        copy.originalTransactionId = member.originalTransactionId
        copy.webOrderLineItemId = member.identifiers.webOrderLineItemId
        copy.originalPurchaseDate = member.originalPurchaseDate
        copy.appAccountToken = nil
        copy.inAppOwnershipType = .familyShared
        copy.appTransactionId = member.appTransactionId
        var info = lastRenewalInfo
        info.originalTransactionId = member.originalTransactionId
        info.appAccountToken = nil
        info.appTransactionId = member.appTransactionId
        member.transaction = copy
        member.renewalInfo = info
        member.phase = phase
        if type == .priceIncrease { member.priceIncrease = subtype }
        member.lastInstant = instant
        append(type, subtype, at: instant, transaction: copy, renewalInfo: info, status: phase.status)
        self.member = member
    }

    /// REVOKE: the member loses access for good (the purchaser stopped sharing, or was refunded).
    func revokeFamilyMember(at instant: Int64) throws(PastHorizon) {
        guard var member, !member.revoked else { return }
        let at = max(instant, member.lastInstant + 1)
        guard at < context.end else { throw PastHorizon() }
        member.transaction.revocationDate = at
        member.transaction.revocationReason = .other
        member.transaction.revocationType = .familyRevoke
        member.phase = .revoked
        member.revoked = true
        member.lastInstant = at
        append(.revoke, nil, at: at, transaction: member.transaction, renewalInfo: member.renewalInfo, status: .revoked)
        self.member = member
    }
}
