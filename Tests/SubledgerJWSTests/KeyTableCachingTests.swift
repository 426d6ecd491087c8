import SubledgerCrypto
import Testing
@testable import SubledgerJWS

/// A leaf key's table costs 17 ms and 150 KB, so the verifier builds one only for a key that has
/// signed a message: messages that fail (forgeries, or genuine chains written out another way
/// with a bad signature) never make it build one.
@Suite("SignedDataVerifier: leaf keys precomputed once they sign")
struct KeyTableCachingTests {
    static let instant = Instant.y2026

    @Test("messages that fail their signature build no table; the first that verifies builds one, kept for the next")
    func tableAfterTheFirstValidMessage() throws {
        let pki = try TestPKI(validity: Instant.y2025...Instant.y2027)
        let verifier = SignedDataVerifier(trustedRoots: [pki.root])
        let text = pki.signer.sign(payload: Forge.payload(signedDate: Self.instant))
        let tampered = Forge.replacingPart(1, of: text, with: Base64URL.encode(Forge.payload(signedDate: Self.instant, transactionId: "9999")))
        for _ in 0..<3 { #expect(verifier.rejection(tampered, at: Self.instant) == .signatureInvalid) }
        #expect(verifier.precomputedKeys == 0)
        #expect(verifier.rejection(text, at: Self.instant) == nil)
        #expect(verifier.precomputedKeys == 1)
        #expect(verifier.rejection(pki.signer.sign(payload: Forge.payload(signedDate: Self.instant, transactionId: "2")), at: Self.instant) == nil)
        #expect(verifier.rejection(tampered, at: Self.instant) == .signatureInvalid, "the table rejects what libcrypto rejected")
        #expect(verifier.precomputedKeys == 1)
    }
}
