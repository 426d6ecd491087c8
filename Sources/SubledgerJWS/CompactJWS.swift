import SubledgerCrypto

/// A JWS in compact serialization (RFC 7515 §7.1): `header.payload.signature`, each part
/// base64url without padding. Parsing checks the form only; ``SignedDataVerifier`` decides trust.
public struct CompactJWS: Sendable {
    /// The header's `alg`.
    public let algorithm: String
    /// The header's `x5c` entries exactly as written there (after JSON unescaping): standard
    /// base64 text of DER certificates, leaf first. Empty when the header has no `x5c`.
    public let x5c: [[UInt8]]
    /// The decoded payload (for App Store data, a JSON object).
    public let payload: [UInt8]
    /// The bytes the signature covers: ASCII `header_b64.payload_b64`.
    public let signingInput: [UInt8]
    /// The decoded signature (for ES256, raw `r || s`).
    public let signature: [UInt8]

    /// Parses the compact text. Surrounding whitespace is not allowed: trim lines first.
    ///
    /// Throws `not_jws` unless there are exactly three parts, each strict base64url, and the
    /// header is a JSON object with a string `alg`, an optional `x5c` array of strings, and no
    /// repeated member names. Other header members are skipped.
    public init(_ text: UnsafeRawBufferPointer) throws(VerificationError) {
        var dots: [Int] = []
        for index in text.indices where text[index] == UInt8(ascii: ".") {
            guard dots.count < 2 else {
                throw VerificationError(.notJWS, "a compact JWS has exactly 3 parts separated by '.'; this has more")
            }
            dots.append(index)
        }
        guard dots.count == 2 else {
            throw VerificationError(.notJWS, "a compact JWS has exactly 3 parts separated by '.'; this has \(dots.count + 1)")
        }
        let headerPart = UnsafeRawBufferPointer(rebasing: text[..<dots[0]])
        let payloadPart = UnsafeRawBufferPointer(rebasing: text[(dots[0] + 1)..<dots[1]])
        let signaturePart = UnsafeRawBufferPointer(rebasing: text[(dots[1] + 1)...])
        guard !headerPart.isEmpty, let headerJSON = Base64URL.decode(headerPart) else {
            throw VerificationError(.notJWS, "the JWS header is not base64url (RFC 4648 §5, unpadded)")
        }
        guard let payload = Base64URL.decode(payloadPart) else {
            throw VerificationError(.notJWS, "the JWS payload is not base64url (RFC 4648 §5, unpadded)")
        }
        guard let signature = Base64URL.decode(signaturePart) else {
            throw VerificationError(.notJWS, "the JWS signature is not base64url (RFC 4648 §5, unpadded)")
        }
        let header = try headerJSON.withUnsafeBytes { bytes in
            Result { () throws(VerificationError) in try JWSHeader(json: bytes) }
        }.get()
        algorithm = header.algorithm
        x5c = header.x5c
        self.payload = payload
        self.signature = signature
        signingInput = Array(text[..<dots[1]])
    }

    public init(_ text: [UInt8]) throws(VerificationError) {
        self = try text.withUnsafeBytes { text in
            Result { () throws(VerificationError) in try CompactJWS(text) }
        }.get()
    }
}
