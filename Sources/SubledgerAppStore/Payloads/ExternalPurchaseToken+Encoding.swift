import SubledgerCore

extension ExternalPurchaseToken: JSONObjectEncodable {
    func encodeMembers(into writer: inout JSONWriter) {
        writer.member("externalPurchaseId", externalPurchaseId)
        writer.member("tokenCreationDate", tokenCreationDate)
        writer.member("tokenExpirationDate", tokenExpirationDate)
        writer.member("tokenType", tokenType)
        writer.member("appAppleId", appAppleId)
        writer.member("bundleId", bundleId)
        writer.unknownMembers(unknownFields)
    }
}
