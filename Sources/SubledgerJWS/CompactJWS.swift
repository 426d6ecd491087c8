#if canImport(Glibc)
import Glibc
#endif
import SubledgerCrypto

/// A JWS in compact serialization (RFC 7515 §7.1): `header.payload.signature`, each part
/// base64url without padding. Parsing checks the form only; ``SignedDataVerifier`` decides trust.
public struct CompactJWS: Sendable {
    /// The header, shared with every JWS parsed lately whose header text is the same.
    public let header: ParsedJWSHeader
    /// The decoded payload (for App Store data, a JSON object).
    public let payload: [UInt8]
    /// The decoded signature (for ES256, raw `r || s`).
    public let signature: [UInt8]
    /// The compact text; the signing input is its first `signingInputCount` bytes.
    private let text: [UInt8]
    private let signingInputCount: Int

    /// The header's `alg`.
    public var algorithm: String { header.algorithm }
    /// The header's `x5c` entries as written: standard base64 text of DER certificates, leaf first.
    public var x5c: [[UInt8]] { header.x5c }
    /// The bytes the signature covers: ASCII `header_b64.payload_b64`.
    public var signingInput: [UInt8] { Array(text[..<signingInputCount]) }

    /// Parses the compact text. Surrounding whitespace is not allowed: trim lines first.
    ///
    /// Throws `not_jws` unless there are exactly three parts, each strict base64url, and the
    /// header is a JSON object with a string `alg`, an optional `x5c` array of strings, and no
    /// repeated member names. Other header members are skipped. A header text parsed lately is
    /// not decoded again (`JWSHeaderCache`).
    public init(_ text: [UInt8]) throws(VerificationError) {
        let (header, payload, signature, signingInputCount) = try text.withUnsafeBytes { bytes in
            Result { () throws(VerificationError) in try Self.parse(bytes) }
        }.get()
        self.header = header
        self.payload = payload
        self.signature = signature
        self.text = text
        self.signingInputCount = signingInputCount
    }

    public init(_ text: UnsafeRawBufferPointer) throws(VerificationError) {
        try self.init(Array(text))
    }

    /// SHA-256 of the signing input, continued from the header's hashed prefix: the header is
    /// the same text as `text`'s first part (parsed from it, or matched byte for byte).
    func signingInputDigest() -> [UInt8] {
        text.withUnsafeBytes { header.signingPrefix.hash(continuingWith: UnsafeRawBufferPointer(rebasing: $0[(header.text.count + 1)..<signingInputCount])) }
    }

    private static func parse(_ text: UnsafeRawBufferPointer) throws(VerificationError) -> (ParsedJWSHeader, [UInt8], [UInt8], Int) {
        guard let first = dot(in: text, from: 0), let second = dot(in: text, from: first + 1) else {
            let parts = text.count(where: { $0 == UInt8(ascii: ".") }) + 1
            throw VerificationError(.notJWS, "a compact JWS has exactly 3 parts separated by '.'; this has \(parts)")
        }
        guard dot(in: text, from: second + 1) == nil else {
            throw VerificationError(.notJWS, "a compact JWS has exactly 3 parts separated by '.'; this has more")
        }
        let headerPart = UnsafeRawBufferPointer(rebasing: text[..<first])
        let payloadPart = UnsafeRawBufferPointer(rebasing: text[(first + 1)..<second])
        let signaturePart = UnsafeRawBufferPointer(rebasing: text[(second + 1)...])
        let cached = headerPart.isEmpty ? nil : JWSHeaderCache.shared.withLock { $0.header(matching: headerPart) }
        // Checked in the order the parts are written; a cached header has passed every check.
        var headerJSON: [UInt8] = []
        if cached == nil {
            guard !headerPart.isEmpty, let decoded = Base64URL.decode(headerPart) else {
                throw VerificationError(.notJWS, "the JWS header is not base64url (RFC 4648 §5, unpadded)")
            }
            headerJSON = decoded
        }
        guard let payload = Base64URL.decode(payloadPart) else {
            throw VerificationError(.notJWS, "the JWS payload is not base64url (RFC 4648 §5, unpadded)")
        }
        guard let signature = Base64URL.decode(signaturePart) else {
            throw VerificationError(.notJWS, "the JWS signature is not base64url (RFC 4648 §5, unpadded)")
        }
        if let cached { return (cached, payload, signature, second) }
        let header = try headerJSON.withUnsafeBytes { json in
            Result { () throws(VerificationError) in try ParsedJWSHeader(text: Array(headerPart), json: json) }
        }.get()
        JWSHeaderCache.shared.withLock { $0.insert(header) }
        return (header, payload, signature, second)
    }

    /// The offset of the first '.' at or after `start`.
    private static func dot(in text: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < text.count, let hit = memchr(text.baseAddress! + start, Int32(UInt8(ascii: ".")), text.count - start) else { return nil }
        return text.baseAddress!.distance(to: UnsafeRawPointer(hit))
    }
}
