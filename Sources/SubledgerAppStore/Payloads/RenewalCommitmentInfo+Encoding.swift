import SubledgerCore

extension RenewalCommitmentInfo: JSONObjectEncodable {
    func encodeMembers(into writer: inout JSONWriter) {
        writer.member("commitmentAutoRenewProductId", commitmentAutoRenewProductId)
        writer.member("commitmentAutoRenewStatus", commitmentAutoRenewStatus)
        writer.member("commitmentRenewalBillingPlanType", commitmentRenewalBillingPlanType)
        writer.member("commitmentRenewalDate", commitmentRenewalDate)
        writer.member("commitmentRenewalPrice", commitmentRenewalPrice)
        writer.unknownMembers(unknownFields)
    }
}
