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
}
