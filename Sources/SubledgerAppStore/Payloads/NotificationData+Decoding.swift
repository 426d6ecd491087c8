extension NotificationData: JSONObjectDecodable {
    enum Field: String, CaseIterable, Sendable {
        case appAppleId
        case bundleId
        case bundleVersion
        case environment
        case signedTransactionInfo
        case signedRenewalInfo
        case status
        case consumptionRequestReason
    }

    static let fields = FieldTable<Field>()

    mutating func decode(_ field: Field, from scanner: inout JSONScanner) throws(PayloadError) {
        switch field {
        case .appAppleId: appAppleId = try scanner.readInt64()
        case .bundleId: bundleId = try scanner.readString()
        case .bundleVersion: bundleVersion = try scanner.readString()
        case .environment: environment = try scanner.readEnum()
        case .signedTransactionInfo: signedTransactionInfo = try scanner.readString()
        case .signedRenewalInfo: signedRenewalInfo = try scanner.readString()
        case .status: status = try scanner.readEnum()
        case .consumptionRequestReason: consumptionRequestReason = try scanner.readEnum()
        }
    }
}
