/// The two JOSE header members App Store verification needs, read by a small strict JSON
/// reader (RFC 8259) instead of a general decoder: `alg` (string) and `x5c` (array of strings).
struct JWSHeader {
    private static let algorithmName = Array("alg".utf8)
    private static let x5cName = Array("x5c".utf8)
    private static let criticalName = Array("crit".utf8)

    var algorithm: String
    var x5c: [[UInt8]]

    init(json: UnsafeRawBufferPointer) throws(VerificationError) {
        var reader = Reader(bytes: json)
        var algorithm: String?
        var x5c: [[UInt8]]?
        var critical: [[UInt8]]?
        var seen: Set<[UInt8]> = []
        do throws(Reader.Failure) {
            try reader.expect(UInt8(ascii: "{"))
            if !reader.consume(UInt8(ascii: "}")) {
                repeat {
                    let name = try reader.string()
                    guard seen.insert(name).inserted else { throw Reader.Failure("member \"\(String(decoding: name, as: UTF8.self))\" appears twice") }
                    try reader.expect(UInt8(ascii: ":"))
                    switch name {
                    case Self.algorithmName:
                        algorithm = String(decoding: try reader.string(), as: UTF8.self)
                    case Self.x5cName:
                        x5c = try reader.stringArray()
                    case Self.criticalName:
                        critical = try reader.stringArray()
                    default:
                        try reader.skipValue(depth: 0)
                    }
                } while reader.consume(UInt8(ascii: ","))
                try reader.expect(UInt8(ascii: "}"))
            }
            try reader.expectEnd()
        } catch {
            throw VerificationError(.notJWS, "the JWS header is not the expected JSON object: \(error.message)")
        }
        guard let algorithm else {
            throw VerificationError(.notJWS, "the JWS header has no \"alg\" member")
        }
        // RFC 7515 §4.1.11: extensions marked critical that the recipient does not understand
        // (it understands none) must be refused, whatever the signature says.
        if let critical {
            let names = critical.map { "\"" + String(decoding: $0, as: UTF8.self) + "\"" }.joined(separator: ", ")
            let marks = critical.isEmpty ? "has an empty \"crit\", which RFC 7515 forbids" : "marks [\(names)] critical (\"crit\"), extensions this verifier does not understand, so RFC 7515 requires refusing it"
            throw VerificationError(.unsupportedAlgorithm, "the JWS header \(marks); Apple's headers have none")
        }
        self.algorithm = algorithm
        self.x5c = x5c ?? []
    }
}

private struct Reader {
    struct Failure: Error {
        let message: String
        init(_ message: String) { self.message = message }
    }

    /// Deeper nesting in a header is hostile input, not data.
    static let maximumDepth = 32

    let bytes: UnsafeRawBufferPointer
    var index = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    /// Consumes `byte` (after whitespace) if it is next.
    mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    mutating func expect(_ byte: UInt8) throws(Failure) {
        guard consume(byte) else { throw Failure("expected '\(Character(Unicode.Scalar(byte)))' at byte \(index)") }
    }

    mutating func expectEnd() throws(Failure) {
        skipWhitespace()
        guard index == bytes.count else { throw Failure("unexpected bytes after the object at byte \(index)") }
    }

    /// A JSON string, unescaped, as UTF-8 bytes.
    mutating func string() throws(Failure) -> [UInt8] {
        try expect(UInt8(ascii: "\""))
        let start = index
        while index < bytes.count, bytes[index] != UInt8(ascii: "\""), bytes[index] != UInt8(ascii: "\\"), bytes[index] >= 0x20 {
            index += 1
        }
        guard index < bytes.count else { throw Failure("unterminated string") }
        if bytes[index] == UInt8(ascii: "\"") {
            index += 1
            return Array(bytes[start..<(index - 1)])
        }
        var result = Array(bytes[start..<index])
        while true {
            guard index < bytes.count else { throw Failure("unterminated string") }
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return result
            case UInt8(ascii: "\\"):
                try unescape(into: &result)
            case ..<0x20:
                throw Failure("control character in string at byte \(index - 1)")
            default:
                result.append(byte)
            }
        }
    }

    private mutating func unescape(into result: inout [UInt8]) throws(Failure) {
        guard index < bytes.count else { throw Failure("unterminated escape") }
        let escape = bytes[index]
        index += 1
        switch escape {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): result.append(escape)
        case UInt8(ascii: "b"): result.append(0x08)
        case UInt8(ascii: "f"): result.append(0x0C)
        case UInt8(ascii: "n"): result.append(0x0A)
        case UInt8(ascii: "r"): result.append(0x0D)
        case UInt8(ascii: "t"): result.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800..<0xDC00).contains(scalar) {
                guard consume(UInt8(ascii: "\\")), index < bytes.count, bytes[index] == UInt8(ascii: "u") else {
                    throw Failure("unpaired surrogate in \\u escape")
                }
                index += 1
                let low = try hex4()
                guard (0xDC00..<0xE000).contains(low) else { throw Failure("unpaired surrogate in \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let unicode = Unicode.Scalar(scalar) else { throw Failure("invalid \\u escape") }
            result.append(contentsOf: String(unicode).utf8)
        default:
            throw Failure("invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
        }
    }

    private mutating func hex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw Failure("truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw Failure("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }

    mutating func stringArray() throws(Failure) -> [[UInt8]] {
        try expect(UInt8(ascii: "["))
        var strings: [[UInt8]] = []
        if consume(UInt8(ascii: "]")) { return strings }
        repeat {
            strings.append(try string())
        } while consume(UInt8(ascii: ","))
        try expect(UInt8(ascii: "]"))
        return strings
    }

    /// Skips any JSON value, validating its syntax.
    mutating func skipValue(depth: Int) throws(Failure) {
        guard depth < Self.maximumDepth else { throw Failure("nested deeper than \(Self.maximumDepth) levels") }
        skipWhitespace()
        guard index < bytes.count else { throw Failure("missing value") }
        switch bytes[index] {
        case UInt8(ascii: "\""):
            _ = try string()
        case UInt8(ascii: "{"):
            index += 1
            if consume(UInt8(ascii: "}")) { return }
            repeat {
                _ = try string()
                try expect(UInt8(ascii: ":"))
                try skipValue(depth: depth + 1)
            } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            index += 1
            if consume(UInt8(ascii: "]")) { return }
            repeat {
                try skipValue(depth: depth + 1)
            } while consume(UInt8(ascii: ","))
            try expect(UInt8(ascii: "]"))
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default:
            try number()
        }
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count,
              word.withUTF8Buffer({ Array($0) }) == Array(bytes[index..<(index + count)])
        else { throw Failure("invalid literal at byte \(index)") }
        index += count
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    private mutating func number() throws(Failure) {
        let start = index
        _ = consumeByte(UInt8(ascii: "-"))
        if !consumeByte(UInt8(ascii: "0")) {
            guard digits() > 0 else { throw Failure("invalid value at byte \(start)") }
        }
        if consumeByte(UInt8(ascii: ".")) {
            guard digits() > 0 else { throw Failure("invalid number at byte \(start)") }
        }
        if consumeByte(UInt8(ascii: "e")) || consumeByte(UInt8(ascii: "E")) {
            if !consumeByte(UInt8(ascii: "+")) { _ = consumeByte(UInt8(ascii: "-")) }
            guard digits() > 0 else { throw Failure("invalid number at byte \(start)") }
        }
    }

    /// Consumes `byte` if it is next, without skipping whitespace (inside a number).
    private mutating func consumeByte(_ byte: UInt8) -> Bool {
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    private mutating func digits() -> Int {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) {
            index += 1
        }
        return index - start
    }
}
