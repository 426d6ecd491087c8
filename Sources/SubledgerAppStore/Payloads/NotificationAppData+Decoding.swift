extension NotificationAppData: JSONObjectDecodable {
    enum Field: String, CaseIterable, Sendable {
        case appAppleId
        case bundleId
        case environment
        case signedAppTransactionInfo
    }

    static let fields = FieldTable<Field>()

    mutating func decode(_ field: Field, from scanner: inout JSONScanner) throws(PayloadError) {
        switch field {
        case .appAppleId: appAppleId = try scanner.readInt64()
        case .bundleId: bundleId = try scanner.readString()
        case .environment: environment = try scanner.readEnum()
        case .signedAppTransactionInfo: signedAppTransactionInfo = try scanner.readString()
        }
    }
}
