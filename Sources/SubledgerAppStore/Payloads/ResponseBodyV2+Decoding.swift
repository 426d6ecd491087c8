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
