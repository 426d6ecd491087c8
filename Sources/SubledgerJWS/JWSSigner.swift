import SubledgerCrypto

/// Signs payloads the way the App Store does: compact JWS, ES256, header exactly
/// `{"alg":"ES256","x5c":["<leaf>","<intermediate>","<root>"]}` (certificates in standard
/// base64). For tests and the workload simulator, with keys from a ``TestPKI``.
public struct JWSSigner: Sendable {
    public let key: ECPrivateKey
    /// DER certificates, leaf first, written into the header as given (any count, so tests can
    /// build malformed chains).
    public let x5c: [[UInt8]]
    /// `header_b64 "."`, the same for every message.
    private let encodedHeader: [UInt8]

    /// - Parameter key: a P-256 key; `sign(payload:)` traps on any other curve.
    public init(key: ECPrivateKey, x5c: [[UInt8]]) {
        precondition(key.curve == .p256, "ES256 needs a P-256 leaf key")
        self.key = key
        self.x5c = x5c
        var header = Array(#"{"alg":"ES256","x5c":["#.utf8)
        for (index, der) in x5c.enumerated() {
            if index > 0 { header.append(UInt8(ascii: ",")) }
            header.append(UInt8(ascii: "\""))
            header.append(contentsOf: Base64.encode(der))
            header.append(UInt8(ascii: "\""))
        }
        header.append(contentsOf: "]}".utf8)
        encodedHeader = Base64URL.encode(header) + [UInt8(ascii: ".")]
    }

    /// The compact JWS of `payload` as ASCII bytes. ECDSA is randomized, so signing the same
    /// payload twice gives two different, equally valid messages.
    public func sign(payload: [UInt8]) -> [UInt8] {
        var jws = encodedHeader
        jws.append(contentsOf: Base64URL.encode(payload))
        let signature: [UInt8]
        do {
            signature = try key.signES256(message: jws)
        } catch {
            // A P-256 key checked in init only fails to sign when libcrypto cannot allocate.
            preconditionFailure("ES256 signing failed: \(error)")
        }
        jws.append(UInt8(ascii: "."))
        jws.append(contentsOf: Base64URL.encode(signature))
        return jws
    }
}
