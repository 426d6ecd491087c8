import SubledgerCrypto
import SubledgerJWS
import Testing

/// A header parsed once is reused for later messages only when its text is byte-identical.
@Suite("JWS header reuse")
struct JWSHeaderCacheTests {
    let key: ECPrivateKey

    init() throws {
        key = try ECPrivateKey(generating: .p256)
    }

    /// Two header texts of the same length that differ in one byte of the last x5c entry.
    func headers() -> (String, String) {
        let leaf = (0..<300).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var other = leaf
        other[299] ^= 0xFF
        let first = Forge.header(x5c: [leaf, [0x30, 0x01], [0x30, 0x02]])
        let second = Forge.header(x5c: [other, [0x30, 0x01], [0x30, 0x02]])
        return (first, second)
    }

    @Test("a repeated header text is parsed once and shared; one changed byte is parsed on its own")
    func sharesOnlyIdenticalHeaders() throws {
        let (first, second) = headers()
        #expect(first.utf8.count == second.utf8.count)
        let a = try CompactJWS(Forge.jws(headerJSON: first, payload: [1], key: key))
        let b = try CompactJWS(Forge.jws(headerJSON: second, payload: [2], key: key))
        let again = try CompactJWS(Forge.jws(headerJSON: first, payload: [3], key: key))
        #expect(again.header === a.header)
        #expect(b.header !== a.header)
        #expect(a.header.text != b.header.text)
        #expect(a.x5c[0] != b.x5c[0])
        #expect(Base64.decode(b.x5c[0])?.last == Base64.decode(a.x5c[0]).map { $0[299] ^ 0xFF })
        #expect(again.payload == [3])
    }

    @Test("after a header was accepted, one that differs in one byte is judged on its own: another alg, or not JSON")
    func judgesChangedHeaderAfresh() throws {
        let pki = try TestPKI(validity: Instant.y2025...Instant.y2027)
        let verifier = SignedDataVerifier(trustedRoots: [pki.root])
        let payload = Forge.payload(signedDate: Instant.y2026)
        let x5c = [pki.leaf.der, pki.intermediate.der, pki.root.der]
        let genuine = try Forge.jws(headerJSON: Forge.header(x5c: x5c), payload: payload, key: pki.leafKey)
        #expect(verifier.rejection(genuine, at: Instant.y2026) == nil)

        let otherAlg = try Forge.jws(headerJSON: Forge.header(alg: "ES257", x5c: x5c), payload: payload, key: pki.leafKey)
        #expect(try CompactJWS(otherAlg).algorithm == "ES257")
        #expect(verifier.rejection(otherAlg, at: Instant.y2026) == .unsupportedAlgorithm)

        var broken = Forge.header(x5c: x5c)
        broken.removeLast()
        broken += "]"
        let error = #expect(throws: VerificationError.self) {
            try CompactJWS(Forge.jws(headerJSON: broken, payload: payload, key: pki.leafKey))
        }
        #expect(error?.reason == .notJWS)
        #expect(verifier.rejection(genuine, at: Instant.y2026) == nil)
    }

    @Test("a known header does not excuse a bad payload or signature part")
    func knownHeaderStillChecksOtherParts() throws {
        let (first, _) = headers()
        let text = try Forge.jws(headerJSON: first, payload: [1], key: key)
        _ = try CompactJWS(text)
        for (part, bad) in [(1, "e30="), (2, "AA+A"), (1, "A")] {
            let error = #expect(throws: VerificationError.self) {
                try CompactJWS(Forge.replacingPart(part, of: text, with: Array(bad.utf8)))
            }
            #expect(error?.reason == .notJWS)
            #expect(error?.detail.contains(part == 1 ? "payload" : "signature") == true)
        }
    }
}
