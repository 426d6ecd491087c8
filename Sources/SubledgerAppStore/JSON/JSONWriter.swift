/// A payload object written member by member: known members in Apple's order, then
/// `unknownFields` verbatim.
protocol JSONObjectEncodable {
    /// Writes the object's members (not its braces); absent fields write nothing.
    func encodeMembers(into writer: inout JSONWriter)
}

/// Appends compact JSON straight into a byte array for the payload encoders.
///
/// Member names are static ASCII, strings are escaped as RFC 8259 requires (only `"`, `\` and
/// control characters; UTF-8 passes through), and numbers are written digit by digit without an
/// intermediate `String`, so encoding a payload allocates only its output.
struct JSONWriter {
    private(set) var bytes: [UInt8] = []
    /// Whether the next member of the object being written needs a comma before it.
    private var needsComma = false

    /// The JSON document of `object`; `capacity` is a guess at its size in bytes.
    static func document<Object: JSONObjectEncodable>(_ object: Object, capacity: Int = 1024) -> [UInt8] {
        var writer = JSONWriter()
        writer.bytes.reserveCapacity(capacity)
        writer.writeObject(object)
        return writer.bytes
    }

    private mutating func writeObject<Object: JSONObjectEncodable>(_ object: Object) {
        bytes.append(.openBrace)
        needsComma = false
        object.encodeMembers(into: &self)
        bytes.append(.closeBrace)
        needsComma = true
    }

    // MARK: Members

    mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        writeName(name)
        writeString(value)
    }

    mutating func member(_ name: StaticString, _ value: Int64?) {
        guard let value else { return }
        writeName(name)
        writeInteger(value)
    }

    mutating func member(_ name: StaticString, _ value: Int?) {
        member(name, value.map { Int64($0) })
    }

    mutating func member(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        writeName(name)
        writeLiteral(value ? "true" : "false")
    }

    mutating func member(_ name: StaticString, _ values: [String]?) {
        guard let values else { return }
        writeName(name)
        bytes.append(.openBracket)
        for (index, value) in values.enumerated() {
            if index > 0 {
                bytes.append(.comma)
            }
            writeString(value)
        }
        bytes.append(.closeBracket)
    }

    mutating func member<Value: OpenStringEnum>(_ name: StaticString, _ value: Value?) {
        member(name, value?.rawValue)
    }

    mutating func member<Value: OpenIntEnum>(_ name: StaticString, _ value: Value?) {
        member(name, value?.rawValue)
    }

    mutating func member<Object: JSONObjectEncodable>(_ name: StaticString, _ object: Object?) {
        guard let object else { return }
        writeName(name)
        writeObject(object)
    }

    /// Members the decoder did not know, written back exactly as they were received.
    mutating func unknownMembers(_ fields: [UnknownField]) {
        for field in fields {
            if needsComma {
                bytes.append(.comma)
            }
            writeString(field.name)
            bytes.append(.colon)
            bytes.append(contentsOf: field.rawJSON.utf8)
            needsComma = true
        }
    }

    // MARK: Values

    private mutating func writeName(_ name: StaticString) {
        if needsComma {
            bytes.append(.comma)
        }
        needsComma = true
        bytes.append(.quote)
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(.quote)
        bytes.append(.colon)
    }

    private mutating func writeLiteral(_ literal: StaticString) {
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    private mutating func writeString(_ string: String) {
        bytes.append(.quote)
        let wasContiguous: Void? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            appendEscaped(utf8)
        }
        if wasContiguous == nil {
            appendEscaped(Array(string.utf8))
        }
        bytes.append(.quote)
    }

    /// Appends runs that need no escaping in one copy each; App Store strings are almost
    /// always a single such run (identifiers, and the kilobytes of a nested JWS).
    private mutating func appendEscaped<Bytes: RandomAccessCollection<UInt8>>(_ utf8: Bytes)
    where Bytes.Index == Int {
        var runStart = utf8.startIndex
        for index in utf8.indices {
            let byte = utf8[index]
            guard byte < 0x20 || byte == .quote || byte == .backslash else { continue }
            bytes.append(contentsOf: utf8[runStart..<index])
            appendEscape(for: byte)
            runStart = index + 1
        }
        bytes.append(contentsOf: utf8[runStart..<utf8.endIndex])
    }

    private mutating func appendEscape(for byte: UInt8) {
        bytes.append(.backslash)
        switch byte {
        case .quote, .backslash: bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case .newline: bytes.append(UInt8(ascii: "n"))
        case .carriageReturn: bytes.append(UInt8(ascii: "r"))
        case .tab: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(contentsOf: [UInt8(ascii: "u"), .zero, .zero])
            hex.withUTF8Buffer { digits in
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            }
        }
    }

    /// Writes the decimal digits in place, most significant first.
    private mutating func writeInteger(_ value: Int64) {
        if value < 0 {
            bytes.append(.minus)
        }
        // Two's complement negation gives the magnitude of Int64.min too.
        var magnitude = value < 0 ? 0 &- UInt64(bitPattern: value) : UInt64(value)
        var digitCount = 1
        var probe = magnitude
        while probe >= 10 {
            probe /= 10
            digitCount += 1
        }
        let end = bytes.count + digitCount
        bytes.append(contentsOf: repeatElement(UInt8.zero, count: digitCount))
        for position in stride(from: end - 1, through: end - digitCount, by: -1) {
            bytes[position] = .zero + UInt8(magnitude % 10)
            magnitude /= 10
        }
    }
}
