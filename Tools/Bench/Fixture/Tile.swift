import SubledgerEvents

/// One tile of a scale fixture: the base's events under other identifiers, a few seconds later.
///
/// Every id that names a customer, a subscription, a transaction or a notification is rewritten
/// so that tiles never share one, deterministically, keeping its shape (the projections store
/// canonical decimals as numbers and UUIDs as 128 bits, so a tile must cost what the original
/// costs):
///
/// - canonical decimals: `id + tile × stride`, where `stride` is a power of ten above every
///   numeric id of the base, so tiles occupy disjoint ranges;
/// - UUIDs: the tile number XORed into the first group. Within a tile this is a bijection; two
///   tiles could only collide on UUIDs equal in their other 96 bits, which random UUIDs are not;
/// - anything else: `-t<tile>` appended.
///
/// Every instant (the signed dates and when the event was recorded) moves `tile` seconds later.
/// In a real ledger no two customers' changes fall on the same millisecond, and the rollups keep
/// a cell per instant at which what is active changes: tiles sharing the base's instants would
/// share those cells and hide what they cost. Seconds move few events across a day, and none
/// across a month but those within a minute of its end.
///
/// Tiles count from 1, so the base's own identifiers (tile 0) stay free: a fresh simulation
/// posted into a fixture names customers no tile has.
struct Tile {
    let tile: UInt64
    let stride: UInt64

    init(tile: Int, stride: UInt64) throws(FixtureError) {
        precondition(tile >= 1, "tiles count from 1")
        let (offset, overflow) = UInt64(tile).multipliedReportingOverflow(by: stride)
        guard !overflow, offset < Self.numberLimit else { throw .tooManyTiles(tile: tile, stride: stride) }
        self.tile = UInt64(tile)
        self.stride = stride
    }

    /// Canonical decimals stay below 2^63: the projections store only those as numbers.
    static let numberLimit: UInt64 = 1 << 63

    /// The smallest power of ten above `largest`: ids below it never reach the next tile's range.
    static func stride(above largest: UInt64) -> UInt64 {
        var stride: UInt64 = 10
        while stride <= largest {
            let (next, overflow) = stride.multipliedReportingOverflow(by: 10)
            guard !overflow else { return stride }
            stride = next
        }
        return stride
    }

    /// The value of `text` when it is a canonical decimal (digits only, no leading zero).
    static func number(_ text: String) -> UInt64? {
        let utf8 = text.utf8
        guard let first = utf8.first, first != UInt8(ascii: "0") || utf8.count == 1,
              utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let value = UInt64(text), value < numberLimit
        else { return nil }
        return value
    }

    /// How much later than the base's this tile's instants are, in milliseconds.
    var shift: Int64 { Int64(tile) * 1_000 }

    func remap(_ event: inout Event) {
        event.notificationUUID = event.notificationUUID.map(identifier)
        event.effectiveAt += shift
        if var transaction = event.transaction {
            transaction.transactionId = transaction.transactionId.map(identifier)
            transaction.originalTransactionId = transaction.originalTransactionId.map(identifier)
            transaction.webOrderLineItemId = transaction.webOrderLineItemId.map(identifier)
            transaction.appAccountToken = transaction.appAccountToken.map(identifier)
            transaction.purchaseDate = transaction.purchaseDate.map(shifted)
            transaction.originalPurchaseDate = transaction.originalPurchaseDate.map(shifted)
            transaction.expiresDate = transaction.expiresDate.map(shifted)
            transaction.signedDate = transaction.signedDate.map(shifted)
            transaction.revocationDate = transaction.revocationDate.map(shifted)
            if let expires = transaction.commitment?.commitmentExpiresDate { transaction.commitment?.commitmentExpiresDate = shifted(expires) }
            event.transaction = transaction
        }
        if var renewal = event.renewal {
            renewal.originalTransactionId = renewal.originalTransactionId.map(identifier)
            renewal.gracePeriodExpiresDate = renewal.gracePeriodExpiresDate.map(shifted)
            renewal.signedDate = renewal.signedDate.map(shifted)
            renewal.renewalDate = renewal.renewalDate.map(shifted)
            renewal.recentSubscriptionStartDate = renewal.recentSubscriptionStartDate.map(shifted)
            if let renews = renewal.commitment?.commitmentRenewalDate { renewal.commitment?.commitmentRenewalDate = shifted(renews) }
            event.renewal = renewal
        }
        if var token = event.externalPurchaseToken {
            token.externalPurchaseId = token.externalPurchaseId.map(identifier)
            token.tokenCreationDate = token.tokenCreationDate.map(shifted)
            event.externalPurchaseToken = token
        }
    }

    func shifted(_ instant: Int64) -> Int64 {
        instant + shift
    }

    func identifier(_ text: String) -> String {
        if let value = Self.number(text), value < stride {
            return String(value + tile * stride)
        }
        if let uuid = uuid(text) { return uuid }
        return text + "-t\(tile)"
    }

    /// `text` with the tile XORed into its first group, when `text` is a UUID (either case).
    private func uuid(_ text: String) -> String? {
        var bytes = Array(text.utf8)
        guard bytes.count == 36 else { return nil }
        for (index, byte) in bytes.enumerated() {
            let dash = index == 8 || index == 13 || index == 18 || index == 23
            guard dash ? byte == UInt8(ascii: "-") : Self.hexValue(byte) != nil else { return nil }
        }
        let uppercase = bytes.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "F") }
        var group: UInt32 = 0
        for byte in bytes[0..<8] { group = group << 4 | UInt32(Self.hexValue(byte)!) }
        group ^= UInt32(truncatingIfNeeded: tile)
        let digits = Array((uppercase ? "0123456789ABCDEF" : "0123456789abcdef").utf8)
        for index in 0..<8 {
            bytes[index] = digits[Int(group >> (28 - 4 * UInt32(index)) & 0xF)]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
