import SubledgerAppStore
import Testing

/// The scanner skips plain string bytes many at a time; what it finds must not depend on where a
/// quote, escape, control character or non-ASCII byte falls relative to those steps.
@Suite("JSON strings: special bytes at every offset of a long string")
struct JSONStringScanningTests {
    static let plain = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~ ".utf8)

    /// `{"signedPayload":"<offset plain bytes><middle><40 plain bytes>"}`.
    func body(offset: Int, middle: [UInt8]) -> (body: [UInt8], before: [UInt8], after: [UInt8]) {
        let before = (0..<offset).map { Self.plain[($0 * 7) % Self.plain.count] }
        let after = (0..<40).map { Self.plain[($0 * 11 + 3) % Self.plain.count] }
        return (Array("{\"signedPayload\":\"".utf8) + before + middle + after + Array("\"}".utf8), before, after)
    }

    @Test("the closing quote ends the string wherever it falls", arguments: 0..<100)
    func closingQuote(length: Int) throws {
        let before = (0..<length).map { Self.plain[($0 * 5) % Self.plain.count] }
        let decoded = try ResponseBodyV2.decode(Array("{\"signedPayload\":\"".utf8) + before + Array("\"}".utf8))
        #expect(decoded.signedPayload == String(decoding: before, as: UTF8.self))
    }

    @Test("an escape, DEL and multi-byte UTF-8 decode at any offset; an unescaped control character or invalid UTF-8 is rejected", arguments: 0..<100)
    func specialBytes(offset: Int) throws {
        let escaped = body(offset: offset, middle: Array("\\n\\\"".utf8))
        #expect(try ResponseBodyV2.decode(escaped.body).signedPayload == String(decoding: escaped.before + [0x0A, 0x22] + escaped.after, as: UTF8.self))

        let delete = body(offset: offset, middle: [0x7F])
        #expect(try ResponseBodyV2.decode(delete.body).signedPayload == String(decoding: delete.before + [0x7F] + delete.after, as: UTF8.self))

        let accented = body(offset: offset, middle: [0xC3, 0xA9])
        #expect(try ResponseBodyV2.decode(accented.body).signedPayload == String(decoding: accented.before + [0xC3, 0xA9] + accented.after, as: UTF8.self))

        #expect(throws: PayloadError.self) { try ResponseBodyV2.decode(body(offset: offset, middle: [0x01]).body) }
        #expect(throws: PayloadError.self) { try ResponseBodyV2.decode(body(offset: offset, middle: [0x1F]).body) }
        #expect(throws: PayloadError.self) { try ResponseBodyV2.decode(body(offset: offset, middle: [0xFF]).body) }
    }

    @Test("signedPayloadBytes accepts and rejects what decode does, and gives its signedPayload's bytes", arguments: [
        #"{"signedPayload":"eyJhbGciOiJFUzI1NiJ9.e30.c2ln"}"#,
        #"{"other":[1,{"a":null}],"signedPayload":"a\/b\u00e9\n","more":true}"#,
        #"{"signedPayload":null}"#,
        #"{"unrelated":"x"}"#,
        #"{"signedPayload":"a","signedPayload":"b"}"#,
        #"{"signedPayload":12}"#,
        #"{"signedPayload":"a"} trailing"#,
        #"{"signedPayload":"a\x"}"#,
        #"["signedPayload"]"#,
    ])
    func signedPayloadBytesMatchesDecode(body: String) {
        let bytes = Array(body.utf8)
        let decoded = Result { try ResponseBodyV2.decode(bytes) }
        let raw = Result { try bytes.withUnsafeBytes { try ResponseBodyV2.signedPayloadBytes($0) } }
        switch (decoded, raw) {
        case (.success(let body), .success(let payload)): #expect(payload == body.signedPayload.map { Array($0.utf8) })
        case (.failure, .failure): break
        default: Issue.record("decode: \(decoded), signedPayloadBytes: \(raw)")
        }
    }
}
