import SubledgerCore

extension TransactionFacts {
    /// What a refund of this transaction gives back, in milliunits: `price × revocationPercentage
    /// / 100000` for REFUND_PRORATED, else the whole price; nil without a price.
    public var refundedAmount: Int64? {
        guard let price else { return nil }
        guard revocationType == "REFUND_PRORATED", let revocationPercentage else { return price }
        return Self.proratedRefund(of: price, percentage: Int64(revocationPercentage))
    }

    /// A prorated refund's share of `price` (`percentage` in thousandths of a percent), rounded
    /// half away from zero: revenue books exactly this.
    public static func proratedRefund(of price: Int64, percentage: Int64) -> Int64 {
        divideRoundingHalfAwayFromZero(price * percentage, 100_000)
    }
}
