import SubledgerCore

extension ResponseBodyV2: JSONObjectEncodable {
    func encodeMembers(into writer: inout JSONWriter) {
        writer.member("signedPayload", signedPayload)
        writer.unknownMembers(unknownFields)
    }
}

extension ResponseBodyV2 {
    /// The body Apple POSTs, `{"signedPayload":"<JWS>"}`: compact, unknown members written back
    /// verbatim after it. `decode(jsonBytes())` gives back an equal value.
    public func jsonBytes() -> [UInt8] {
        JSONWriter.document(self, capacity: 32 + (signedPayload?.utf8.count ?? 0))
    }
}
