extension NotificationPayload: JSONObjectDecodable {
    enum Field: String, CaseIterable, Sendable {
        case notificationType
        case subtype
        case notificationUUID
        case version
        case signedDate
        case data
        case summary
        case externalPurchaseToken
        case appData
    }

    static let fields = FieldTable<Field>()

    mutating func decode(_ field: Field, from scanner: inout JSONScanner) throws(PayloadError) {
        switch field {
        case .notificationType: notificationType = try scanner.readEnum()
        case .subtype: subtype = try scanner.readEnum()
        case .notificationUUID: notificationUUID = try scanner.readString()
        case .version: version = try scanner.readString()
        case .signedDate: signedDate = try scanner.readMilliseconds()
        case .data: data = try scanner.decodeObject(NotificationData.self)
        case .summary: summary = try scanner.decodeObject(NotificationSummary.self)
        case .externalPurchaseToken: externalPurchaseToken = try scanner.decodeObject(ExternalPurchaseToken.self)
        case .appData: appData = try scanner.decodeObject(NotificationAppData.self)
        }
    }
}

extension NotificationPayload {
    /// Decodes the JSON of a responseBodyV2DecodedPayload. Throws if it is not valid JSON, a known field has the wrong
    /// type, or a member repeats; unknown members and unknown enum values are kept, not rejected.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(PayloadError) -> NotificationPayload {
        try JSONScanner.decodeDocument(bytes, as: Self.self)
    }

    public static func decode(_ bytes: [UInt8]) throws(PayloadError) -> NotificationPayload {
        // Array.withUnsafeBytes rethrows untyped errors; carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(PayloadError) in try decode(buffer) }
        }
        return try result.get()
    }
}
