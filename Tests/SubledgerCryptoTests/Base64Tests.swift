import Foundation
import SubledgerCrypto
import SubledgerTestSupport
import Testing

@Suite("Base64 and Base64URL codecs")
struct Base64Tests {
    /// Random bytes of every length 0...300, the same on every run.
    static let samples: [[UInt8]] = {
        var generator = SeededGenerator(state: 0x5EED)
        return (0...300).map { count in (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) } }
    }()

    static func foundationURLText(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test("standard base64 encodes like Foundation and decodes back, lengths 0...300")
    func standardMatchesFoundation() throws {
        for bytes in Self.samples {
            let foundation = Data(bytes).base64EncodedString()
            let encoded = Base64.encode(bytes)
            #expect(String(decoding: encoded, as: UTF8.self) == foundation, "length \(bytes.count)")
            #expect(Base64.decode(Array(foundation.utf8)) == bytes, "length \(bytes.count)")
        }
    }

    @Test("base64url encodes like Foundation's output translated to the URL alphabet without padding, and decodes back")
    func urlMatchesFoundation() throws {
        for bytes in Self.samples {
            let expected = Self.foundationURLText(bytes)
            #expect(String(decoding: Base64URL.encode(bytes), as: UTF8.self) == expected, "length \(bytes.count)")
            #expect(Base64URL.decode(Array(expected.utf8)) == bytes, "length \(bytes.count)")
        }
    }

    @Test("decoding works on an UnsafeRawBufferPointer slice of a larger buffer")
    func decodesFromRawBuffer() {
        let text = Array("xxSGVsbG8sIHdvcmxkxx".utf8)
        let decoded = text.withUnsafeBytes { Base64URL.decode(UnsafeRawBufferPointer(rebasing: $0[2..<18])) }
        #expect(decoded == Array("Hello, world".utf8))
    }

    @Test("base64url rejects padding, the standard alphabet's + and /, whitespace, bytes above ASCII and impossible lengths",
          arguments: ["QQ==", "QUI=", "a+bc", "a/bc", "QUJD RA", "QUJD\n", "QUJDR", "Q", "\u{00E9}AAA", "QUJ\0"])
    func urlRejects(_ text: String) {
        #expect(Base64URL.decode(Array(text.utf8)) == nil)
    }

    @Test("standard base64 rejects missing or misplaced padding, the URL alphabet, whitespace and impossible lengths",
          arguments: ["QQ", "QUI", "QQ=", "Q===", "====", "=QUJ", "QQ==QUJD", "a-bc", "a_bc", "QUJD\n", " QUJD", "QUJDR==="])
    func standardRejects(_ text: String) {
        #expect(Base64.decode(Array(text.utf8)) == nil)
    }

    @Test("both codecs reject non-zero unused trailing bits, so every byte string has one accepted encoding")
    func rejectsNonCanonicalTrailingBits() {
        // "QQ" and "QUI" are canonical for "A" and "AB"; changing the last character keeps the
        // decoded bytes' prefix but sets bits that no encoder produces.
        #expect(Base64URL.decode(Array("QQ".utf8)) == [0x41])
        #expect(Base64URL.decode(Array("QR".utf8)) == nil)
        #expect(Base64URL.decode(Array("QUI".utf8)) == [0x41, 0x42])
        #expect(Base64URL.decode(Array("QUJ".utf8)) == nil)
        #expect(Base64.decode(Array("QR==".utf8)) == nil)
        #expect(Base64.decode(Array("QUJ=".utf8)) == nil)
    }

    @Test("every character outside the alphabet is rejected in every position of a group")
    func rejectsEachInvalidByte() {
        let urlAlphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let standardAlphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for byte in UInt8.min...UInt8.max {
            for position in 0..<4 {
                // With "QUJD" around it, even "=" is never valid: "QU=D" misplaces it and
                // "QUJ=" leaves non-zero trailing bits.
                var text = Array("QUJD".utf8)
                text[position] = byte
                if !urlAlphabet.contains(byte) {
                    #expect(Base64URL.decode(text) == nil, "byte \(byte) at \(position)")
                }
                if !standardAlphabet.contains(byte) {
                    #expect(Base64.decode(text) == nil, "byte \(byte) at \(position)")
                }
            }
        }
    }

    @Test("in a long text, decoded many characters at a time, a character outside the alphabet is rejected at every position")
    func rejectsEachInvalidByteInLongText() {
        let bytes = Self.samples[75]
        let url = Base64URL.encode(bytes), standard = Base64.encode(bytes)
        let urlAlphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let standardAlphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=".utf8)
        for byte in UInt8.min...UInt8.max {
            for position in 0..<96 {
                if !urlAlphabet.contains(byte) {
                    var text = url
                    text[position] = byte
                    #expect(Base64URL.decode(text) == nil, "byte \(byte) at \(position)")
                }
                if !standardAlphabet.contains(byte) {
                    var text = standard
                    text[position] = byte
                    #expect(Base64.decode(text) == nil, "byte \(byte) at \(position)")
                }
            }
        }
    }

    @Test("empty input encodes and decodes to empty")
    func empty() {
        #expect(Base64.encode([]) == [])
        #expect(Base64URL.encode([]) == [])
        #expect(Base64.decode([]) == [])
        #expect(Base64URL.decode([]) == [])
    }
}
