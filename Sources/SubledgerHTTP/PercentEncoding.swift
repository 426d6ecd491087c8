/// Percent-decoding of URI components (RFC 3986 §2.1).
enum PercentEncoding {
    /// The decoded text, or nil when an escape is not `%` and two hex digits or the bytes are not
    /// UTF-8. With `plusAsSpace` (query strings, as HTML forms encode them) `+` decodes to a space.
    static func decode(_ encoded: some Collection<UInt8>, plusAsSpace: Bool) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var index = encoded.startIndex
        while index != encoded.endIndex {
            let byte = encoded[index]
            encoded.formIndex(after: &index)
            switch byte {
            case UInt8(ascii: "%"):
                guard index != encoded.endIndex, let high = HTTPSyntax.hexValue(encoded[index]) else { return nil }
                encoded.formIndex(after: &index)
                guard index != encoded.endIndex, let low = HTTPSyntax.hexValue(encoded[index]) else { return nil }
                encoded.formIndex(after: &index)
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+") where plusAsSpace:
                bytes.append(UInt8(ascii: " "))
            default:
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    /// True when every `%` starts a valid escape.
    static func hasValidEscapes(_ encoded: some Collection<UInt8>) -> Bool {
        var index = encoded.startIndex
        while let percent = encoded[index...].firstIndex(of: UInt8(ascii: "%")) {
            var cursor = encoded.index(after: percent)
            for _ in 0..<2 {
                guard cursor != encoded.endIndex, HTTPSyntax.hexValue(encoded[cursor]) != nil else { return false }
                encoded.formIndex(after: &cursor)
            }
            index = cursor
        }
        return true
    }
}
