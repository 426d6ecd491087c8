extension ExternalPurchaseToken: JSONObjectDecodable {
    enum Field: String, CaseIterable, Sendable {
        case externalPurchaseId
        case tokenCreationDate
        case tokenExpirationDate
        case tokenType
        case appAppleId
        case bundleId
    }

    static let fields = FieldTable<Field>()

    mutating func decode(_ field: Field, from scanner: inout JSONScanner) throws(PayloadError) {
        switch field {
        case .externalPurchaseId: externalPurchaseId = try scanner.readString()
        case .tokenCreationDate: tokenCreationDate = try scanner.readMilliseconds()
        case .tokenExpirationDate: tokenExpirationDate = try scanner.readMilliseconds()
        case .tokenType: tokenType = try scanner.readEnum()
        case .appAppleId: appAppleId = try scanner.readInt64()
        case .bundleId: bundleId = try scanner.readString()
        }
    }
}
