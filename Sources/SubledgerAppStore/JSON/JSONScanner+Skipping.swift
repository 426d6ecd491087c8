extension JSONScanner {
    /// Validates the value at `index` and moves past it without building anything.
    mutating func skipValue() throws(PayloadError) {
        guard index < bytes.count else {
            throw endOfInput("expected a value")
        }
        switch bytes[index] {
        case .quote:
            _ = try scanString()
        case .openBrace:
            try skipContainer(closedBy: .closeBrace)
        case .openBracket:
            try skipContainer(closedBy: .closeBracket)
        case UInt8(ascii: "t"):
            try consumeLiteral("true")
        case UInt8(ascii: "f"):
            try consumeLiteral("false")
        case UInt8(ascii: "n"):
            try consumeLiteral("null")
        case .minus, .zero...UInt8(ascii: "9"):
            _ = try scanNumber()
        default:
            throw malformed("expected a value, found \(describe(bytes[index]))")
        }
    }

    /// The value at `index`, verbatim, after checking it is valid JSON.
    mutating func captureValue() throws(PayloadError) -> String {
        let start = index
        try skipValue()
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
    }

    private mutating func skipContainer(closedBy close: UInt8) throws(PayloadError) {
        let isObject = close == .closeBrace
        try enterContainer()
        skipWhitespace()
        if index < bytes.count && bytes[index] == close {
            leaveContainer()
            return
        }
        while true {
            skipWhitespace()
            if isObject {
                guard index < bytes.count else {
                    throw endOfInput("expected a member name")
                }
                guard bytes[index] == .quote else {
                    throw malformed("expected a member name in double quotes, found \(describe(bytes[index]))")
                }
                _ = try scanString()
                skipWhitespace()
                guard index < bytes.count else {
                    throw endOfInput("expected ':' after a member name")
                }
                guard bytes[index] == .colon else {
                    throw malformed("expected ':' after a member name, found \(describe(bytes[index]))")
                }
                index += 1
                skipWhitespace()
            }
            try skipValue()
            skipWhitespace()
            guard index < bytes.count else {
                throw endOfInput("expected ',' or '\(Character(Unicode.Scalar(close)))'")
            }
            if bytes[index] == close {
                leaveContainer()
                return
            }
            guard bytes[index] == .comma else {
                throw malformed(
                    "expected ',' or '\(Character(Unicode.Scalar(close)))', found \(describe(bytes[index]))")
            }
            index += 1
        }
    }
}
