import SubledgerCrypto

/// A JWS header part and what it says, shared by every JWS whose header text is byte-identical
/// (App Store headers carry the x5c chain and repeat for as long as Apple signs with it).
public final class ParsedJWSHeader: Sendable {
    /// The header part exactly as written: base64url text.
    public let text: [UInt8]
    /// The header's `alg`.
    public let algorithm: String
    /// The header's `x5c` entries exactly as written there (after JSON unescaping): standard
    /// base64 text of DER certificates, leaf first. Empty when the header has no `x5c`.
    public let x5c: [[UInt8]]
    /// What `SignedDataVerifier` caches a verified chain under: SHA-256 over `x5c[0] "." x5c[1]`
    /// ('.' is outside the base64 alphabet, so distinct pairs never hash the same input) when
    /// there are exactly three certificates, the only chains it accepts; empty otherwise.
    let chainKey: [UInt8]
    /// SHA-256 state after `text` and the '.' that ends it: the start of every signing input
    /// with this header, hashed once (`CompactJWS.signingInputDigest`).
    let signingPrefix: SHA256Prefix

    /// Parses the decoded header JSON; `text` is the base64url text it was decoded from.
    init(text: [UInt8], json: UnsafeRawBufferPointer) throws(VerificationError) {
        let header = try JWSHeader(json: json)
        self.text = text
        signingPrefix = (text + [UInt8(ascii: ".")]).withUnsafeBytes { SHA256Prefix($0) }
        algorithm = header.algorithm
        x5c = header.x5c
        if x5c.count == 3 {
            var input = x5c[0]
            input.reserveCapacity(x5c[0].count + 1 + x5c[1].count)
            input.append(UInt8(ascii: "."))
            input.append(contentsOf: x5c[1])
            chainKey = SHA256.hash(input)
        } else {
            chainKey = []
        }
    }
}
