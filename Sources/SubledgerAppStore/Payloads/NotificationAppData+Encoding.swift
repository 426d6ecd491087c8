import SubledgerCore

extension NotificationAppData: JSONObjectEncodable {
    func encodeMembers(into writer: inout JSONWriter) {
        writer.member("appAppleId", appAppleId)
        writer.member("bundleId", bundleId)
        writer.member("environment", environment)
        writer.member("signedAppTransactionInfo", signedAppTransactionInfo)
        writer.unknownMembers(unknownFields)
    }
}
