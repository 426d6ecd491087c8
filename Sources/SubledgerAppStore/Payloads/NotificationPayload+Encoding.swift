import SubledgerCore

extension NotificationPayload: JSONObjectEncodable {
    /// Members in the order Apple's notifications use: the content object before `version` and
    /// `signedDate`.
    func encodeMembers(into writer: inout JSONWriter) {
        writer.member("notificationType", notificationType)
        writer.member("subtype", subtype)
        writer.member("notificationUUID", notificationUUID)
        writer.member("data", data)
        writer.member("summary", summary)
        writer.member("externalPurchaseToken", externalPurchaseToken)
        writer.member("appData", appData)
        writer.member("version", version)
        writer.member("signedDate", signedDate)
        writer.unknownMembers(unknownFields)
    }
}

extension NotificationPayload {
    /// The JSON of a responseBodyV2DecodedPayload: compact, absent fields omitted, unknown members
    /// written back verbatim after the known ones. `decode(jsonBytes())` gives back an equal value.
    public func jsonBytes() -> [UInt8] {
        // The nested JWS strings are nearly all of a notification's size.
        let nestedJWS =
            (data?.signedTransactionInfo?.utf8.count ?? 0) + (data?.signedRenewalInfo?.utf8.count ?? 0)
            + (appData?.signedAppTransactionInfo?.utf8.count ?? 0)
        return JSONWriter.document(self, capacity: 1024 + nestedJWS)
    }
}
