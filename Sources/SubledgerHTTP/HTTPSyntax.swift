/// Character classes of RFC 9110 §5.6 and RFC 9112, on bytes.
enum HTTPSyntax {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09
    static let colon: UInt8 = 0x3A

    /// `tchar`: the characters of a token (method, header name, transfer coding).
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
             UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"),
             UInt8(ascii: "'"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."),
             UInt8(ascii: "^"), UInt8(ascii: "_"), UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
            return true
        default:
            return false
        }
    }

    /// A byte allowed inside a field value: VCHAR, obs-text, SP and HTAB (no CR, LF, NUL or other CTL).
    static func isFieldValueCharacter(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    static func isWhitespace(_ byte: UInt8) -> Bool { byte == space || byte == tab }

    /// A `Host` field as RFC 9112 (3.2) allows it: `uri-host [ ":" port ]`, the host an IP
    /// literal in brackets or a reg-name (letters, digits, `-._~`, sub-delims other than `,`,
    /// percent escapes; IPv4 addresses are reg-names too), the port digits. Empty is allowed.
    static func isHostField(_ field: some StringProtocol) -> Bool {
        var bytes = Substring(field).utf8[...]
        if bytes.first == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")) else { return false }
            let literal = bytes[bytes.index(after: bytes.startIndex)..<close]
            guard !literal.isEmpty, literal.allSatisfy({ hexValue($0) != nil || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else { return false }
            bytes = bytes[bytes.index(after: close)...]
        } else {
            let name = bytes.prefix { $0 != UInt8(ascii: ":") }
            guard name.allSatisfy({ isRegNameCharacter($0) }) else { return false }
            bytes = bytes[name.endIndex...]
        }
        guard let colon = bytes.first else { return true }
        return colon == UInt8(ascii: ":") && bytes.dropFirst().allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
    }

    private static func isRegNameCharacter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            || "-._~!$&'()*+;=%".utf8.contains(byte)
    }

    static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenCharacter)
    }

    static func isFieldValue(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.allSatisfy(isFieldValueCharacter)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    static func lowercased(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte | 0x20 : byte
    }

    /// ASCII case-insensitive equality, as header names and tokens compare.
    static func equalsIgnoringCase(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { lowercased($0) == lowercased($1) }
    }

    /// The comma-separated elements of a list-valued field (`#element`), trimmed, empty ones dropped.
    static func listElements(_ value: String) -> [Substring] {
        value.split(separator: ",").compactMap { element in
            let trimmed = element.drop(while: { $0 == " " || $0 == "\t" })
            let end = trimmed.lastIndex(where: { $0 != " " && $0 != "\t" })
            guard let end else { return nil }
            return trimmed[...end]
        }
    }
}
