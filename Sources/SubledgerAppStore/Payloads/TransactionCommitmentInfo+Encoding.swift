import SubledgerCore

extension TransactionCommitmentInfo: JSONObjectEncodable {
    func encodeMembers(into writer: inout JSONWriter) {
        writer.member("billingPeriodNumber", billingPeriodNumber)
        writer.member("totalBillingPeriods", totalBillingPeriods)
        writer.member("commitmentExpiresDate", commitmentExpiresDate)
        writer.member("commitmentPrice", commitmentPrice)
        writer.unknownMembers(unknownFields)
    }
}
