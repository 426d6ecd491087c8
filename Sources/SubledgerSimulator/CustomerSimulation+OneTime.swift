import SubledgerAppStore

/// Consumables (coins.100) and the non-renewing pass (pass.30days): ONE_TIME_CHARGE, sometimes a
/// refund request, refund or decline, and rarely a reversal.
extension CustomerSimulation {
    func simulateOneTimePurchases(from join: Int64) {
        var monthStart = join
        while monthStart < context.end {
            let monthEnd = min(UTC.adding(months: 1, to: monthStart), context.end)
            if random.chance(rates.consumablesPerMonth), let at = instant(between: monthStart, and: monthEnd) {
                purchaseOnce(.coins, at: at)
            }
            if random.chance(rates.passPerMonth), let at = instant(between: monthStart, and: monthEnd) {
                purchaseOnce(.pass, at: at)
            }
            monthStart = monthEnd
        }
    }

    private func purchaseOnce(_ product: Product, at instant: Int64) {
        let identifiers = nextIdentifiers()
        let price = storefront.price(product)
        var transaction = TransactionPayload()
        transaction.transactionId = identifiers.transactionId
        transaction.originalTransactionId = identifiers.transactionId
        transaction.bundleId = context.bundleId
        transaction.productId = product.productId
        transaction.purchaseDate = instant
        transaction.originalPurchaseDate = instant
        transaction.quantity = 1
        transaction.type = product.type
        transaction.appAccountToken = appAccountToken
        transaction.inAppOwnershipType = .purchased
        transaction.environment = .production
        transaction.storefront = storefront.code
        transaction.storefrontId = storefront.storefrontId
        transaction.transactionReason = .purchase
        transaction.price = price
        transaction.currency = storefront.currency.code
        transaction.appTransactionId = appTransactionId
        let sale = sell(at: instant, price: price, rate: 70)
        append(.oneTimeCharge, nil, at: instant, transaction: transaction, renewalInfo: nil, status: nil)

        guard random.chance(rates.refundRequest),
              let request = self.instant(between: instant, and: instant + 7 * Self.day), request < context.end
        else { return }
        if random.chance(rates.consumptionRequest) {
            append(.consumptionRequest, nil, at: request, transaction: transaction, renewalInfo: nil, status: nil,
                   consumptionReason: drawConsumptionReason())
        }
        guard let decision = self.instant(between: request + Self.day, and: request + 3 * Self.day), decision < context.end else { return }
        guard random.chance(rates.refundGranted) else {
            append(.refundDeclined, nil, at: decision, transaction: transaction, renewalInfo: nil, status: nil)
            return
        }
        transaction.revocationDate = decision
        transaction.revocationReason = random.chance(0.25) ? .appIssue : .other
        transaction.revocationType = .refundFull
        bookRefund(of: sale, at: decision, amount: price, count: 1)
        append(.refund, nil, at: decision, transaction: transaction, renewalInfo: nil, status: nil)

        guard random.chance(rates.refundReversed),
              let reversal = self.instant(between: decision + Self.day, and: decision + 3 * Self.day), reversal < context.end,
              context.grid.index(of: reversal) == context.grid.index(of: decision)
        else { return }
        transaction.revocationDate = nil
        transaction.revocationReason = nil
        transaction.revocationType = nil
        bookRefund(of: sale, at: reversal, amount: -price, count: -1)
        append(.refundReversed, nil, at: reversal, transaction: transaction, renewalInfo: nil, status: nil)
    }
}
