extension ResponseBodyV2: JSONObjectDecodable {
    enum Field: String, CaseIterable, Sendable {
        case signedPayload
    }

    static let fields = FieldTable<Field>()

    mutating func decode(_ field: Field, from scanner: inout JSONScanner) throws(PayloadError) {
        switch field {
        case .signedPayload: signedPayload = try scanner.readString()
        }
    }
}

extension ResponseBodyV2 {
    /// Decodes the JSON of a responseBodyV2. Throws if it is not valid JSON, a known field has the wrong
    /// type, or a member repeats; unknown members and unknown enum values are kept, not rejected.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(PayloadError) -> ResponseBodyV2 {
        try JSONScanner.decodeDocument(bytes, as: Self.self)
    }

    public static func decode(_ bytes: [UInt8]) throws(PayloadError) -> ResponseBodyV2 {
        // Array.withUnsafeBytes rethrows untyped errors; carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(PayloadError) in try decode(buffer) }
        }
        return try result.get()
    }
}

extension ResponseBodyV2 {
    /// The `signedPayload` of a responseBodyV2 as bytes, the document checked exactly as `decode`
    /// checks it, but the value never made a `String`: ingestion keeps the JWS as bytes, and a
    /// ~16 KB `String` cost a UTF-8 check, a copy and an allocation per notification.
    public static func signedPayloadBytes(_ bytes: UnsafeRawBufferPointer) throws(PayloadError) -> [UInt8]? {
        try JSONScanner.decodeDocument(bytes, as: SignedPayloadBytes.self).signedPayload
    }

    private struct SignedPayloadBytes: JSONObjectDecodable {
        static var fields: FieldTable<Field> { ResponseBodyV2.fields }

        var signedPayload: [UInt8]?
        var unknownFields: [UnknownField] = []

        mutating func decode(_ field: Field, from scanner: inout JSONScanner) throws(PayloadError) {
            switch field {
            case .signedPayload: signedPayload = try scanner.readBytes()
            }
        }
    }
}
