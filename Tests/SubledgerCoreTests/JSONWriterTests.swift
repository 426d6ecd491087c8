import SubledgerCore
import Testing

@Suite struct JSONWriterTests {
    @Test func membersKeepTheirOrderAndCommasGoBetweenThem() {
        let document = JSON.object([
            ("b", .int(1)), ("a", .array([.string("x"), .null, .bool(false)])), ("c", .object([])),
        ])
        #expect(document.serialized() == #"{"b":1,"a":["x",null,false],"c":{}}"#)
    }

    @Test func stringsEscapeOnlyQuoteBackslashAndControlCharacters() {
        let text = "a\"b\\c\n\r\t\u{08}\u{0C}\u{01}\u{1F}é/😀"
        #expect(JSON.string(text).serialized() == #""a\"b\\c\n\r\t\b\f\u0001\u001fé/😀""#)
    }

    @Test func integersAreExactAtBothEnds() {
        let values = JSON.array([.integer(.min), .integer(.max), .integer(0), .integer(-7), .unsigned(.max)])
        #expect(values.serialized() == "[-9223372036854775808,9223372036854775807,0,-7,18446744073709551615]")
    }

    @Test("doubles are their shortest text, a whole number without \".0\" (as JSONEncoder and the contract write them), and non-finite ones null")
    func doublesAreShortestAndNonFiniteOnesAreNull() {
        let values = JSON.array([.double(0.08), .double(1e-05), .double(2), .double(0), .double(-3), .double(1e21), .double(.infinity), .double(.nan)])
        #expect(values.serialized() == "[0.08,1e-05,2,0,-3,1e+21,null,null]")
    }

    @Test func writingIntoBytesAppendsOneValueWithoutAComma() {
        var bytes = Array("x:".utf8)
        JSON.object([("k", .optional(nil as String?))]).write(into: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == #"x:{"k":null}"#)
    }

    @Test func rawValuesAndStaticNamesAreWrittenVerbatim() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.name("known")
        writer.integer(1)
        writer.name("unknown field")
        writer.raw(Array(#"{"n": [1, 2]}"#.utf8))
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"known":1,"unknown field":{"n": [1, 2]}}"#)
    }
}
