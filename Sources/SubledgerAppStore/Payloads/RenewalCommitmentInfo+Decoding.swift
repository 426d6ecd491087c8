extension RenewalCommitmentInfo: JSONObjectDecodable {
    enum Field: String, CaseIterable, Sendable {
        case commitmentAutoRenewProductId
        case commitmentAutoRenewStatus
        case commitmentRenewalBillingPlanType
        case commitmentRenewalDate
        case commitmentRenewalPrice
    }

    static let fields = FieldTable<Field>()

    mutating func decode(_ field: Field, from scanner: inout JSONScanner) throws(PayloadError) {
        switch field {
        case .commitmentAutoRenewProductId: commitmentAutoRenewProductId = try scanner.readString()
        case .commitmentAutoRenewStatus: commitmentAutoRenewStatus = try scanner.readEnum()
        case .commitmentRenewalBillingPlanType: commitmentRenewalBillingPlanType = try scanner.readEnum()
        case .commitmentRenewalDate: commitmentRenewalDate = try scanner.readMilliseconds()
        case .commitmentRenewalPrice: commitmentRenewalPrice = try scanner.readAmount()
        }
    }
}
