import Foundation
import SubledgerCrypto
import SubledgerJWS
import Testing

@Suite("CompactJWS parsing")
struct CompactJWSTests {
    let key: ECPrivateKey

    init() throws {
        key = try ECPrivateKey(generating: .p256)
    }

    @Test("a signed message parses into alg, x5c text, payload, signing input and a 64-byte signature")
    func parsesSignedMessage() throws {
        let certificates: [[UInt8]] = [[0x30, 0x01, 0xAA], [0x30, 0x02, 0xBB, 0xFB], [0x30, 0x00]]
        let payload = Forge.payload(signedDate: Instant.y2026)
        let text = JWSSigner(key: key, x5c: certificates).sign(payload: payload)
        let jws = try CompactJWS(text)
        #expect(jws.algorithm == "ES256")
        #expect(jws.x5c.map { Base64.decode($0) } == certificates)
        #expect(jws.payload == payload)
        #expect(jws.signature.count == 64)
        let secondDot = try #require(text.indices.filter { text[$0] == UInt8(ascii: ".") }.last)
        #expect(jws.signingInput == Array(text[..<secondDot]))
        #expect(key.publicKey.verifyES256(signature: jws.signature, message: jws.signingInput))
    }

    @Test("the signer writes exactly Apple's header shape")
    func signerHeaderShape() throws {
        let certificates: [[UInt8]] = [[1, 2, 3], [4, 5], [6]]
        let text = String(decoding: JWSSigner(key: key, x5c: certificates).sign(payload: [0x7B, 0x7D]), as: UTF8.self)
        var header = String(text.split(separator: ".")[0]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        header += String(repeating: "=", count: (4 - header.count % 4) % 4)
        let json = String(decoding: try #require(Data(base64Encoded: header)), as: UTF8.self)
        #expect(json == #"{"alg":"ES256","x5c":["AQID","BAU=","Bg=="]}"#)
    }

    @Test("other header members of any JSON type are skipped and escapes are decoded")
    func headerMembers() throws {
        let json = #"{ "typ" : "JWT", "kid":"a\"b\u00e9\ud83d\ude00", "nested": {"a": [1, -2.5e+3, true, false, null, {}, []]}, "alg": "ES\u0032\u00356", "x5c": ["MA\/=", "AB+\/"] }"#
        let jws = try CompactJWS(Forge.jws(headerJSON: json, payload: [], key: key))
        #expect(jws.algorithm == "ES256")
        #expect(jws.x5c == [Array("MA/=".utf8), Array("AB+/".utf8)])
        #expect(jws.payload == [])
    }

    @Test("a header without x5c parses with an empty chain (verification then rejects it)")
    func headerWithoutX5C() throws {
        let jws = try CompactJWS(Forge.jws(headerJSON: #"{"alg":"ES256"}"#, payload: [1], key: key))
        #expect(jws.x5c.isEmpty)
    }

    @Test("input that is not three base64url parts is not_jws", arguments: [
        "", "garbage", "a.b", "a.b.c.d", "..", "e30.e30.", "e30.e30", ".e30.e30",
        "eyJhbGciOiJFUzI1NiJ9.e30=.AAAA", "eyJhbGciOiJFUzI1NiJ9.e30.AA+A", "eyJhbGciOiJFUzI1NiJ9.e 30.AAAA",
        "eyJhbGciOiJFUzI1NiJ9.e30.AAAA\n",
    ])
    func rejectsNonJWS(_ text: String) {
        let error = #expect(throws: VerificationError.self) { try CompactJWS(Array(text.utf8)) }
        #expect(error?.reason == .notJWS)
    }

    @Test("a header that is not a JSON object with a string alg, or repeats a member, is not_jws", arguments: [
        "{", "[]", "\"alg\"", #"{"alg":"ES256"} x"#, #"{"alg":"ES256",}"#, #"{"alg":ES256}"#, #"{"alg":256}"#,
        #"{"x5c":[]}"#, #"{"alg":"ES256","alg":"none"}"#, #"{"alg":"ES256","x5c":"MIIB"}"#, #"{"alg":"ES256","x5c":[1]}"#,
        #"{"alg":"ES256","kid":01}"#, #"{"alg":"ES256","kid":"\x"}"#, #"{"alg":"ES256","kid":"\ud83d"}"#,
        "{\"alg\":\"ES\n256\"}", #"{"alg":"ES256","kid":tru}"#,
        "{\"alg\":\"ES256\",\"k\":" + String(repeating: "[", count: 40) + String(repeating: "]", count: 40) + "}",
    ])
    func rejectsBadHeader(_ json: String) throws {
        let error = #expect(throws: VerificationError.self) {
            try CompactJWS(Forge.jws(headerJSON: json, payload: [], key: key))
        }
        #expect(error?.reason == .notJWS)
    }

    @Test("a header marking extensions critical (crit) is refused as RFC 7515 requires of one that understands none, naming them; a crit that is not an array of names is not_jws", arguments: [
        (#"{"alg":"ES256","crit":["urn:x"],"urn:x":1}"#, VerificationError.Reason.unsupportedAlgorithm),
        (#"{"alg":"ES256","crit":["b64"],"b64":false}"#, .unsupportedAlgorithm),
        (#"{"crit":[],"alg":"ES256"}"#, .unsupportedAlgorithm),
        (#"{"alg":"ES256","crit":"b64"}"#, .notJWS),
    ])
    func refusesCriticalExtensions(_ json: String, _ reason: VerificationError.Reason) throws {
        let error = #expect(throws: VerificationError.self) {
            try CompactJWS(Forge.jws(headerJSON: json, payload: [], key: key))
        }
        #expect(error?.reason == reason)
        if reason == .unsupportedAlgorithm { #expect(error?.detail.contains("crit") == true) }
    }
}
