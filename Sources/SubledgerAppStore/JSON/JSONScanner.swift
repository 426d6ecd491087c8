/// A strict, allocation-light JSON reader over borrowed bytes, driven by the payload decoders.
///
/// The scanner never builds a document tree: decoders ask for the next member name, dispatch on
/// it, and read the value as the type that field must have. Values of members nobody asked for are
/// validated and skipped (or captured verbatim). It accepts exactly RFC 8259 JSON: UTF-8, no
/// trailing data, no leading zeros, no lone surrogates, and at most ``maxDepth`` nested containers.
///
/// Invariant between calls: `index` sits on the first byte of the next value to read (whitespace
/// already skipped), or on the byte after the last value read.
struct JSONScanner {
    /// Apple's payloads nest three levels deep; anything far deeper is not an App Store payload.
    static let maxDepth = 16

    let bytes: UnsafeBufferPointer<UInt8>
    var index = 0
    private var depth = 0
    /// Set by `enterObject`, so `nextMember` knows no ',' precedes the first member.
    private var atFirstMember = false

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes.assumingMemoryBound(to: UInt8.self)
    }

    // MARK: Whitespace and errors

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case .space, .newline, .carriageReturn, .tab:
                index += 1
            default:
                return
            }
        }
    }

    func malformed(_ message: String, at offset: Int? = nil) -> PayloadError {
        PayloadError(.malformedJSON, at: offset ?? index, message)
    }

    func endOfInput(_ expectation: String) -> PayloadError {
        PayloadError(.malformedJSON, at: bytes.count, "unexpected end of input, \(expectation)")
    }

    /// "expected a string, found a number", positioned at the offending value.
    func mismatch(expected: String) -> PayloadError {
        guard index < bytes.count else {
            return endOfInput("expected \(expected)")
        }
        let found: String
        switch bytes[index] {
        case .quote: found = "a string"
        case .openBrace: found = "an object"
        case .openBracket: found = "an array"
        case UInt8(ascii: "t"), UInt8(ascii: "f"): found = "a boolean"
        case UInt8(ascii: "n"): found = "null"
        case .minus, .zero...UInt8(ascii: "9"): found = "a number"
        default:
            return malformed("expected \(expected), found \(describe(bytes[index]))")
        }
        return PayloadError(.typeMismatch, at: index, "expected \(expected), found \(found)")
    }

    func describe(_ byte: UInt8) -> String {
        if byte >= 0x21 && byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x" + (hex.count == 1 ? "0" + hex : hex)
    }

    // MARK: Document and objects

    /// Requires that only whitespace follows the value just read.
    mutating func expectEndOfInput() throws(PayloadError) {
        skipWhitespace()
        guard index == bytes.count else {
            throw malformed("unexpected \(describe(bytes[index])) after the end of the JSON document")
        }
    }

    mutating func enterObject() throws(PayloadError) {
        guard index < bytes.count, bytes[index] == .openBrace else {
            throw mismatch(expected: "an object")
        }
        try enterContainer()
        atFirstMember = true
    }

    /// Moves to the next member of the object being read and returns its name, or returns `nil`
    /// after consuming the closing brace. On return, `index` is at the member's value.
    mutating func nextMember() throws(PayloadError) -> StringSpan? {
        skipWhitespace()
        guard index < bytes.count else {
            throw endOfInput(atFirstMember ? "expected a member name or '}'" : "expected ',' or '}'")
        }
        var byte = bytes[index]
        if byte == .closeBrace {
            index += 1
            depth -= 1
            atFirstMember = false
            return nil
        }
        if atFirstMember {
            atFirstMember = false
        } else {
            guard byte == .comma else {
                throw malformed("expected ',' or '}' after an object member, found \(describe(byte))")
            }
            index += 1
            skipWhitespace()
            guard index < bytes.count else {
                throw endOfInput("expected a member name")
            }
            byte = bytes[index]
        }
        guard byte == .quote else {
            throw malformed("expected a member name in double quotes, found \(describe(byte))")
        }
        let name = try scanString()
        skipWhitespace()
        guard index < bytes.count else {
            throw endOfInput("expected ':' after a member name")
        }
        guard bytes[index] == .colon else {
            throw malformed("expected ':' after a member name, found \(describe(bytes[index]))")
        }
        index += 1
        skipWhitespace()
        guard index < bytes.count else {
            throw endOfInput("expected a value")
        }
        return name
    }

    mutating func enterContainer() throws(PayloadError) {
        guard depth < Self.maxDepth else {
            throw PayloadError(
                .nestingTooDeep, at: index, "arrays and objects nest deeper than \(Self.maxDepth) levels")
        }
        depth += 1
        index += 1
    }

    mutating func leaveContainer() {
        depth -= 1
        index += 1
    }

    // MARK: Scalars

    /// Consumes `null` if the value is null; a known field holding null is treated as absent.
    mutating func consumeNull() throws(PayloadError) -> Bool {
        guard bytes[index] == UInt8(ascii: "n") else {
            return false
        }
        try consumeLiteral("null")
        return true
    }

    mutating func readBool() throws(PayloadError) -> Bool {
        guard index < bytes.count else {
            throw endOfInput("expected a boolean")
        }
        switch bytes[index] {
        case UInt8(ascii: "t"):
            try consumeLiteral("true")
            return true
        case UInt8(ascii: "f"):
            try consumeLiteral("false")
            return false
        default:
            throw mismatch(expected: "a boolean")
        }
    }

    mutating func consumeLiteral(_ literal: StaticString) throws(PayloadError) {
        let start = index
        let count = literal.utf8CodeUnitCount
        guard bytes.count - index >= count else {
            throw endOfInput("expected '\(literal)'")
        }
        let matches = literal.withUTF8Buffer { expected in
            for offset in 0..<count where bytes[start + offset] != expected[offset] {
                return false
            }
            return true
        }
        guard matches else {
            throw malformed("invalid literal, expected '\(literal)'")
        }
        index += count
    }

    mutating func readStringArray() throws(PayloadError) -> [String] {
        guard index < bytes.count, bytes[index] == .openBracket else {
            throw mismatch(expected: "an array of strings")
        }
        try enterContainer()
        var strings: [String] = []
        skipWhitespace()
        if index < bytes.count && bytes[index] == .closeBracket {
            leaveContainer()
            return strings
        }
        while true {
            skipWhitespace()
            strings.append(try readString())
            skipWhitespace()
            guard index < bytes.count else {
                throw endOfInput("expected ',' or ']'")
            }
            switch bytes[index] {
            case .comma:
                index += 1
            case .closeBracket:
                leaveContainer()
                return strings
            default:
                throw malformed("expected ',' or ']' after an array element, found \(describe(bytes[index]))")
            }
        }
    }
}

extension UInt8 {
    static let space = UInt8(ascii: " ")
    static let newline = UInt8(ascii: "\n")
    static let carriageReturn = UInt8(ascii: "\r")
    static let tab = UInt8(ascii: "\t")
    static let quote = UInt8(ascii: "\"")
    static let backslash = UInt8(ascii: "\\")
    static let openBrace = UInt8(ascii: "{")
    static let closeBrace = UInt8(ascii: "}")
    static let openBracket = UInt8(ascii: "[")
    static let closeBracket = UInt8(ascii: "]")
    static let comma = UInt8(ascii: ",")
    static let colon = UInt8(ascii: ":")
    static let minus = UInt8(ascii: "-")
    static let plus = UInt8(ascii: "+")
    static let dot = UInt8(ascii: ".")
    static let zero = UInt8(ascii: "0")
}
