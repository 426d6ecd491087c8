import SubledgerCore

extension NotificationSummary: JSONObjectEncodable {
    func encodeMembers(into writer: inout JSONWriter) {
        writer.member("requestIdentifier", requestIdentifier)
        writer.member("environment", environment)
        writer.member("appAppleId", appAppleId)
        writer.member("bundleId", bundleId)
        writer.member("productId", productId)
        writer.member("storefrontCountryCodes", storefrontCountryCodes)
        writer.member("failedCount", failedCount)
        writer.member("succeededCount", succeededCount)
        writer.unknownMembers(unknownFields)
    }
}
