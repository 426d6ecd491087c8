extension NotificationSummary: JSONObjectDecodable {
    enum Field: String, CaseIterable, Sendable {
        case requestIdentifier
        case environment
        case appAppleId
        case bundleId
        case productId
        case storefrontCountryCodes
        case failedCount
        case succeededCount
    }

    static let fields = FieldTable<Field>()

    mutating func decode(_ field: Field, from scanner: inout JSONScanner) throws(PayloadError) {
        switch field {
        case .requestIdentifier: requestIdentifier = try scanner.readString()
        case .environment: environment = try scanner.readEnum()
        case .appAppleId: appAppleId = try scanner.readInt64()
        case .bundleId: bundleId = try scanner.readString()
        case .productId: productId = try scanner.readString()
        case .storefrontCountryCodes: storefrontCountryCodes = try scanner.readStringArray()
        case .failedCount: failedCount = try scanner.readInt64()
        case .succeededCount: succeededCount = try scanner.readInt64()
        }
    }
}
