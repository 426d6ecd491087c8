import SubledgerCore

extension NotificationData: JSONObjectEncodable {
    func encodeMembers(into writer: inout JSONWriter) {
        writer.member("appAppleId", appAppleId)
        writer.member("bundleId", bundleId)
        writer.member("bundleVersion", bundleVersion)
        writer.member("environment", environment)
        writer.member("signedTransactionInfo", signedTransactionInfo)
        writer.member("signedRenewalInfo", signedRenewalInfo)
        writer.member("status", status)
        writer.member("consumptionRequestReason", consumptionRequestReason)
        writer.unknownMembers(unknownFields)
    }
}

extension NotificationData {
    /// The JSON of a notification's `data` object: compact, absent fields omitted, unknown members
    /// written back verbatim after the known ones, exactly as ``NotificationPayload/jsonBytes()``
    /// writes it inside a notification.
    public func jsonBytes() -> [UInt8] {
        let nestedJWS = (signedTransactionInfo?.utf8.count ?? 0) + (signedRenewalInfo?.utf8.count ?? 0)
        return JSONWriter.document(self, capacity: 512 + nestedJWS)
    }
}
