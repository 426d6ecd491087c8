import SubledgerEvents

extension EventView {
    /// A key from what the event says, which orders the facts of one timeline signed in the same
    /// millisecond (`Fact.tie`). By log position alone, two different messages so signed (a
    /// renewal preference to two products, EXPIRED with two subtypes) resolved by arrival, and
    /// two ledgers fed them in opposite orders answered differently.
    ///
    /// A notification is named by its `notificationUUID`, Apple's and unique (`notification`,
    /// the key the fold made of it: its bits, parsed once; a key of interned text is numbered by
    /// arrival, so the text itself); anything else (a transaction or renewal info fed bare) by
    /// the fields a resolution weighs. 16 bits of FNV-1a: tied facts with the same key, 1 in
    /// 65,536, fall back to log position.
    func tieBreak(notification: NotificationKey?) -> UInt16 {
        var hash = Self.fnvOffset
        if let notification, !notification.isText {
            Self.mix(notification.bits.low, into: &hash)
            Self.mix(notification.bits.high, into: &hash)
        } else if let uuid = notificationUUID {
            Self.mix(uuid, into: &hash)
        } else {
            if let transaction {
                Self.mix(transaction.signedDate, into: &hash)
                Self.mix(transaction.purchaseDate, into: &hash)
                Self.mix(transaction.expiresDate, into: &hash)
                Self.mix(transaction.revocationDate, into: &hash)
                Self.mix(transaction.price, into: &hash)
                Self.mix(transaction.revocationPercentage.map(Int64.init), into: &hash)
                Self.mix(transaction.transactionId, into: &hash)
                Self.mix(transaction.revocationType, into: &hash)
                Self.mix(transaction.productId, into: &hash)
            }
            if let renewal {
                Self.mix(renewal.signedDate, into: &hash)
                Self.mix(renewal.gracePeriodExpiresDate, into: &hash)
                Self.mix(renewal.autoRenewStatus.map(Int64.init), into: &hash)
                Self.mix(renewal.expirationIntent.map(Int64.init), into: &hash)
                Self.mix(renewal.priceIncreaseStatus.map(Int64.init), into: &hash)
                Self.mix(renewal.autoRenewProductId, into: &hash)
            }
        }
        return UInt16(truncatingIfNeeded: hash ^ hash >> 16 ^ hash >> 32 ^ hash >> 48)
    }

    private static let fnvOffset: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let fnvPrime: UInt64 = 0x100_0000_01b3

    private static func mix(_ value: UInt64, into hash: inout UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { hash = (hash ^ (value >> UInt64(shift) & 0xff)) &* fnvPrime }
    }

    /// An absent value as `Int64.min`, which no present one is.
    private static func mix(_ value: Int64?, into hash: inout UInt64) {
        mix(UInt64(bitPattern: value ?? .min), into: &hash)
    }

    /// The text's bytes, then a byte no UTF-8 text holds, so that adjacent texts cannot run together.
    private static func mix(_ text: TextRef?, into hash: inout UInt64) {
        text?.withUTF8 { bytes in for byte in bytes { hash = (hash ^ UInt64(byte)) &* fnvPrime } }
        hash = (hash ^ 0xff) &* fnvPrime
    }
}
