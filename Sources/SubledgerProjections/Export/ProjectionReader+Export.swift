import SubledgerLog
import SubledgerEvents

/// What `subledger export` reads: every transaction and every subscription's state, a part of
/// the timelines at a time (`forEachPart`), so memory stays bounded whatever the history.
extension ProjectionReader {
    /// Calls `body` with each transaction bought, refunded, reversed or revoked in `window` (epoch
    /// milliseconds), as known from the events recorded before `position`, in every environment,
    /// timeline by timeline.
    public func forEachTransaction(in window: Range<Int64>, before position: LogPosition, _ body: (ExportedTransaction) throws -> Void) throws {
        // The caller's own errors (an export file's write) are thrown as they are: `read`
        // reports any other as the database's, and a full disk under `--out` was told to run
        // `rebuild`.
        var failure: (any Error)?
        do {
            for environment in try summary().environments {
                try forEachPart(of: environment) { part in
                    for (timeline, history) in part.histories(in: ReportScope(environment: environment, atPosition: position)) {
                        for transaction in history.periods + history.purchases where transaction.touches(window) {
                            do { try body(part.exported(transaction, of: timeline, recordedBefore: position)) } catch {
                                failure = error
                                throw error
                            }
                        }
                    }
                }
            }
        } catch {
            throw failure ?? error
        }
    }

    /// Calls `body` with each subscription's state at `instant` (from the facts signed by then and
    /// recorded before `position`), with its customer's id, in every environment. `body`'s errors
    /// are thrown as they are.
    public func forEachSubscription(at instant: Int64, before position: LogPosition, _ body: (_ customerId: String, SubscriptionState) throws -> Void) throws {
        let visibility = Visibility(beforePosition: position.rawValue, notAfter: instant)
        var failure: (any Error)?
        do {
            for environment in try summary().environments {
                try forEachPart(of: environment) { part in
                    for timeline in part.timelines {
                        let history = SubscriptionHistory(timeline, visibility: visibility)
                        guard let state = part.subscriptionState(history, of: timeline, at: instant) else { continue }
                        do { try body(part.customerId(of: timeline, recordedBefore: position), state) } catch {
                            failure = error
                            throw error
                        }
                    }
                }
            }
        } catch {
            throw failure ?? error
        }
    }
}

extension ResolvedTransaction {
    /// Whether the transaction was bought, refunded, reversed or revoked inside `window`.
    func touches(_ window: Range<Int64>) -> Bool {
        if window.contains(version.purchaseDate) || window.contains(version.revocationDate) { return true }
        return refundChanges.contains { change in
            switch change {
            case .refunded(let at, _, _, _), .reversed(let at, _, _): window.contains(at)
            }
        }
    }

    /// The last refund that is not a family revoke, the whole amount it leaves refunded, and its
    /// reversal.
    var lastRefund: (at: Int64, amount: Int64, reversedAt: Int64?)? {
        var last: (at: Int64, amount: Int64, reversedAt: Int64?)?
        for change in refundChanges {
            switch change {
            case .refunded(let at, _, let standing, false): last = (at, standing, nil)
            case .reversed(let at, _, false): last?.reversedAt = at
            default: break
            }
        }
        return last
    }
}

extension Projection {
    /// The timeline's customer as it stood when the log ended at `position`: a token recorded
    /// later would name a customer no exported event names.
    func customerId(of timeline: Timeline, recordedBefore position: LogPosition) -> String {
        customerToken(of: timeline, recordedBefore: position.rawValue).map(tokenText) ?? identifierText(timeline.key.originalTransactionId)
    }

    func exported(_ transaction: ResolvedTransaction, of timeline: Timeline, recordedBefore position: LogPosition) -> ExportedTransaction {
        let version = transaction.version
        let refund = transaction.lastRefund
        return ExportedTransaction(
            transactionId: identifierText(version.transactionId), originalTransactionId: identifierText(timeline.key.originalTransactionId),
            customerId: customerId(of: timeline, recordedBefore: position), environment: text(timeline.key.environment), productId: text(version.productId),
            subscriptionGroupId: text(version.subscriptionGroup), type: text(version.type), ownership: text(version.ownership),
            storefront: text(version.storefront), currency: text(version.currency), price: version.price.present,
            purchaseDate: version.purchaseDate.present, originalPurchaseDate: version.originalPurchaseDate.present,
            expiresDate: version.expiresDate.present, offerType: version.offerType >= 0 ? Int(version.offerType) : nil,
            offerDiscountType: text(version.offerDiscountType), offerPeriod: text(version.offerPeriod),
            billingPlanType: text(version.billingPlanType), isUpgraded: version.isUpgraded,
            revocationDate: version.revocationDate.present, revocationType: text(version.revocationType),
            revocationPercentage: version.revocationPercentage.present,
            refundDate: refund?.at, refundAmount: refund?.amount, refundReversedDate: refund?.reversedAt)
    }
}
