import CTextKernels

/// The bytes between a string's quotes, as they appear in the input.
struct StringSpan {
    var start: Int
    var end: Int
    /// Whether the raw bytes contain escapes, so they must be unescaped before use.
    var hasEscapes: Bool
}

extension JSONScanner {
    /// Validates the string starting at `index` (on its opening quote) and moves past it.
    ///
    /// Everything that can be wrong with a string is rejected here, so skipped values are held to
    /// the same standard as decoded ones: unescaped control characters, unknown escapes, bad
    /// `\u` digits, unpaired surrogates, invalid UTF-8, a missing closing quote.
    mutating func scanString() throws(PayloadError) -> StringSpan {
        let open = index
        index += 1
        let start = index
        var hasEscapes = false
        var isASCII = true
        while true {
            skipPlainASCII()
            guard index < bytes.count else {
                break
            }
            let byte = bytes[index]
            if byte == .quote {
                let span = StringSpan(start: start, end: index, hasEscapes: hasEscapes)
                index += 1
                if !isASCII {
                    try validateUTF8(from: span.start, to: span.end)
                }
                return span
            } else if byte == .backslash {
                hasEscapes = true
                try scanEscape()
            } else if byte < 0x20 {
                throw malformed("control character \(describe(byte)) must be escaped inside a string")
            } else {
                isASCII = isASCII && byte < 0x80
                index += 1
            }
        }
        throw endOfInput("the string starting at byte \(open) is not terminated")
    }

    /// Skips bytes that need no attention inside a string (printable ASCII other than `"` and `\`),
    /// 16 at a time in C (`CTextKernels`, SSE2); the nested JWS strings of a notification are
    /// kilobytes of such bytes.
    @inline(__always)
    private mutating func skipPlainASCII() {
        guard let base = bytes.baseAddress, index < bytes.count else {
            return
        }
        index += subledger_json_plain_run(base + index, bytes.count - index)
    }

    /// Validates one escape sequence at `index` (on the backslash) and moves past it; a high
    /// surrogate must be followed by an escaped low surrogate.
    private mutating func scanEscape() throws(PayloadError) {
        let escapeStart = index
        guard index + 1 < bytes.count else {
            throw endOfInput("expected an escape sequence after '\\'")
        }
        switch bytes[index + 1] {
        case .quote, .backslash, UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
        case UInt8(ascii: "u"):
            let unit = try hexCodeUnit(at: index + 2)
            index += 6
            if (0xDC00...0xDFFF).contains(unit) {
                throw malformed("unpaired low surrogate \\u\(String(unit, radix: 16)) in a string", at: escapeStart)
            }
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == .backslash, bytes[index + 1] == UInt8(ascii: "u"),
                    (0xDC00...0xDFFF).contains(try hexCodeUnit(at: index + 2))
                else {
                    throw malformed(
                        "high surrogate \\u\(String(unit, radix: 16)) is not followed by an escaped low surrogate",
                        at: escapeStart)
                }
                index += 6
            }
        default:
            throw malformed(
                "invalid escape sequence '\\\(Character(Unicode.Scalar(bytes[index + 1])))' in a string",
                at: escapeStart)
        }
    }

    /// The UTF-16 code unit spelled by the four hex digits at `offset`.
    private func hexCodeUnit(at offset: Int) throws(PayloadError) -> UInt16 {
        guard offset + 4 <= bytes.count else {
            throw endOfInput("expected four hex digits after '\\u'")
        }
        var unit: UInt16 = 0
        for position in offset..<offset + 4 {
            let byte = bytes[position]
            let digit: UInt8
            switch byte {
            case .zero...UInt8(ascii: "9"): digit = byte - .zero
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw malformed("expected a hex digit in a \\u escape, found \(describe(byte))", at: position)
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// Rejects bytes that are not well-formed UTF-8 (RFC 3629: no overlong forms, no surrogates,
    /// nothing above U+10FFFF).
    private func validateUTF8(from start: Int, to end: Int) throws(PayloadError) {
        var position = start
        while position < end {
            let lead = bytes[position]
            if lead < 0x80 {
                position += 1
                continue
            }
            let length: Int
            var lower: UInt8 = 0x80
            var upper: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; lower = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; upper = 0x9F
            case 0xF0: length = 4; lower = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; upper = 0x8F
            default: throw malformed("invalid UTF-8 byte \(describe(lead)) in a string", at: position)
            }
            guard position + length <= end else {
                throw malformed("truncated UTF-8 sequence in a string", at: position)
            }
            for continuation in 1..<length {
                let byte = bytes[position + continuation]
                let (low, high) = continuation == 1 ? (lower, upper) : (0x80, 0xBF)
                guard byte >= low && byte <= high else {
                    throw malformed("invalid UTF-8 sequence in a string", at: position)
                }
            }
            position += length
        }
    }

    // MARK: Making Strings

    mutating func readString() throws(PayloadError) -> String {
        guard index < bytes.count, bytes[index] == .quote else {
            throw mismatch(expected: "a string")
        }
        return string(of: try scanString())
    }

    /// The UTF-8 bytes of the string at the current position, escapes resolved.
    mutating func readBytes() throws(PayloadError) -> [UInt8] {
        guard index < bytes.count, bytes[index] == .quote else {
            throw mismatch(expected: "a string")
        }
        let span = try scanString()
        return span.hasEscapes ? unescapedBytes(of: span) : Array(UnsafeBufferPointer(rebasing: bytes[span.start..<span.end]))
    }

    /// The text of a span that `scanString` validated.
    func string(of span: StringSpan) -> String {
        if span.hasEscapes {
            return String(decoding: unescapedBytes(of: span), as: UTF8.self)
        }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[span.start..<span.end]), as: UTF8.self)
    }

    /// The UTF-8 bytes a validated span stands for, escapes resolved.
    func unescapedBytes(of span: StringSpan) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(span.end - span.start)
        var position = span.start
        while position < span.end {
            let byte = bytes[position]
            guard byte == .backslash else {
                output.append(byte)
                position += 1
                continue
            }
            let escaped = bytes[position + 1]
            position += 2
            switch escaped {
            case UInt8(ascii: "b"): output.append(0x08)
            case UInt8(ascii: "f"): output.append(0x0C)
            case UInt8(ascii: "n"): output.append(0x0A)
            case UInt8(ascii: "r"): output.append(0x0D)
            case UInt8(ascii: "t"): output.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = UInt32(hexValue(at: position))
                position += 4
                if (0xD800...0xDBFF).contains(scalar) {
                    let low = UInt32(hexValue(at: position + 2))
                    position += 6
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                output.append(contentsOf: UTF8.encode(Unicode.Scalar(scalar)!)!)
            default: output.append(escaped)  // '"', '\\' and '/' stand for themselves
            }
        }
        return output
    }

    /// Four hex digits already checked by `scanEscape`.
    private func hexValue(at offset: Int) -> UInt16 {
        var unit: UInt16 = 0
        for position in offset..<offset + 4 {
            let byte = bytes[position]
            let digit = byte <= UInt8(ascii: "9") ? byte - .zero : (byte | 0x20) - UInt8(ascii: "a") + 10
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    /// Looks up a member name or raw value in `table`, resolving escapes first if there are any.
    func lookup<Value>(_ span: StringSpan, in table: ByteStringTable<Value>) -> Value? {
        if span.hasEscapes {
            return unescapedBytes(of: span).withUnsafeBufferPointer { table.value(for: $0) }
        }
        return table.value(for: UnsafeBufferPointer(rebasing: bytes[span.start..<span.end]))
    }
}
