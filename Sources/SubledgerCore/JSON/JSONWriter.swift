/// Appends compact JSON straight into a byte array.
///
/// Strings are escaped as RFC 8259 requires (only `"`, `\` and control characters; UTF-8 passes
/// through) and integers are written digit by digit without an intermediate `String`, so a
/// document allocates only its output. The writer places the commas: call `name` before each
/// member's value and nothing between array elements.
public struct JSONWriter: Sendable {
    public var bytes: [UInt8]
    /// Whether the next member or element needs a comma before it.
    @usableFromInline var needsComma = false

    @inlinable
    public init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: Structure

    @inlinable
    public mutating func beginObject() { open(UInt8(ascii: "{")) }

    @inlinable
    public mutating func endObject() { close(UInt8(ascii: "}")) }

    @inlinable
    public mutating func beginArray() { open(UInt8(ascii: "[")) }

    @inlinable
    public mutating func endArray() { close(UInt8(ascii: "]")) }

    /// A member name known at compile time; it must be ASCII that needs no escaping.
    @inlinable
    public mutating func name(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    @inlinable
    public mutating func name(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    // MARK: Values

    @inlinable
    public mutating func string(_ string: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        var contiguous = string
        contiguous.withUTF8 { appendEscaped($0) }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    @inlinable
    public mutating func integer(_ value: Int64) {
        separate()
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
        }
        // Two's complement negation gives the magnitude of Int64.min too.
        appendDigits(value < 0 ? 0 &- UInt64(bitPattern: value) : UInt64(value))
        needsComma = true
    }

    @inlinable
    public mutating func unsigned(_ value: UInt64) {
        separate()
        appendDigits(value)
        needsComma = true
    }

    /// Swift's shortest text that reads back as the same `Double` ("0.08", "1e-05"), a whole
    /// number without its ".0" ("1", as `JSONEncoder` and the contract's examples write it); JSON
    /// has no infinities or NaN, so those are `null`.
    @inlinable
    public mutating func double(_ value: Double) {
        guard value.isFinite else { return literal("null") }
        separate()
        let text = String(value)
        bytes.append(contentsOf: (text.hasSuffix(".0") ? text.dropLast(2) : Substring(text)).utf8)
        needsComma = true
    }

    @inlinable
    public mutating func bool(_ value: Bool) {
        literal(value ? "true" : "false")
    }

    @inlinable
    public mutating func null() {
        literal("null")
    }

    /// A value that is already JSON text, written verbatim.
    @inlinable
    public mutating func raw(_ json: some Sequence<UInt8>) {
        separate()
        bytes.append(contentsOf: json)
        needsComma = true
    }

    // MARK: Bytes

    @inlinable
    mutating func separate() {
        if needsComma {
            bytes.append(UInt8(ascii: ","))
        }
    }

    @inlinable
    mutating func open(_ bracket: UInt8) {
        separate()
        bytes.append(bracket)
        needsComma = false
    }

    @inlinable
    mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        needsComma = true
    }

    @inlinable
    mutating func literal(_ literal: StaticString) {
        separate()
        literal.withUTF8Buffer { bytes.append(contentsOf: $0) }
        needsComma = true
    }

    /// Appends runs that need no escaping in one copy each; most strings are a single such run
    /// (identifiers, and the kilobytes of a nested JWS). Not generic, and indexed by hand: an
    /// unspecialized collection walk (debug builds, the tests' simulator) cost a metadata look-up
    /// per byte.
    @inlinable
    mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                appendEscape(for: byte)
                runStart = index + 1
            }
            index += 1
        }
        bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
    }

    @inlinable
    mutating func appendEscape(for byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
        case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
        case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
            hex.withUTF8Buffer { digits in
                bytes.append(digits[Int(byte >> 4)])
                bytes.append(digits[Int(byte & 0x0F)])
            }
        }
    }

    /// Writes the decimal digits in place, most significant first.
    @inlinable
    mutating func appendDigits(_ value: UInt64) {
        var magnitude = value
        var digitCount = 1
        var probe = magnitude
        while probe >= 10 {
            probe /= 10
            digitCount += 1
        }
        let end = bytes.count + digitCount
        bytes.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: digitCount))
        for position in stride(from: end - 1, through: end - digitCount, by: -1) {
            bytes[position] = UInt8(ascii: "0") + UInt8(magnitude % 10)
            magnitude /= 10
        }
    }
}
