extension TransactionCommitmentInfo: JSONObjectDecodable {
    enum Field: String, CaseIterable, Sendable {
        case billingPeriodNumber
        case totalBillingPeriods
        case commitmentExpiresDate
        case commitmentPrice
    }

    static let fields = FieldTable<Field>()

    mutating func decode(_ field: Field, from scanner: inout JSONScanner) throws(PayloadError) {
        switch field {
        case .billingPeriodNumber: billingPeriodNumber = try scanner.readInt()
        case .totalBillingPeriods: totalBillingPeriods = try scanner.readInt()
        case .commitmentExpiresDate: commitmentExpiresDate = try scanner.readMilliseconds()
        case .commitmentPrice: commitmentPrice = try scanner.readInt64()
        }
    }
}
