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
        case .billingPeriodNumber: billingPeriodNumber = Int(try scanner.readInt64(in: 0...1_000, "a billing period's number"))
        case .totalBillingPeriods: totalBillingPeriods = Int(try scanner.readInt64(in: 0...1_000, "a commitment's number of billing periods"))
        case .commitmentExpiresDate: commitmentExpiresDate = try scanner.readMilliseconds()
        case .commitmentPrice: commitmentPrice = try scanner.readAmount()
        }
    }
}
