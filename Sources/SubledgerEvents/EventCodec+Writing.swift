import SubledgerCore

// Writers of the v1 layout beyond the shared varints: tagged text.

extension [UInt8] {
    mutating func appendText(_ text: String, _ encoding: TextEncoding) {
        switch encoding {
        case .plain:
            break
        case .identifier:
            if let number = canonicalDecimal(text) {
                appendVarint(number &<< 1 | 1)
                return
            }
        case .uuid:
            if let (bytes, uppercase) = canonicalUUID(text) {
                appendVarint(uppercase ? 3 : 1)
                Swift.withUnsafeBytes(of: bytes) { append(contentsOf: $0) }
                return
            }
        case .vocabulary(let vocabulary):
            if let index = vocabulary.index(of: text) {
                appendVarint(UInt64(index) &<< 1 | 1)
                return
            }
        }
        let utf8 = text.utf8
        appendVarint(UInt64(utf8.count) &<< 1)
        append(contentsOf: utf8)
    }
}

/// The number a decimal identifier stands for, when writing it as a number gives back exactly
/// the same string: ASCII digits only, no leading zero (except "0" itself), below 2^63 so the
/// tag varint `n << 1 | 1` fits 64 bits. The projections key identifiers by it too, so that an
/// id the codec stores as a number is found by its text.
public func canonicalDecimal(_ text: String) -> UInt64? {
    let utf8 = text.utf8
    guard (1...19).contains(utf8.count) else { return nil }
    if utf8.count > 1, utf8.first == UInt8(ascii: "0") { return nil }
    var value: UInt64 = 0
    for byte in utf8 {
        let digit = byte &- UInt8(ascii: "0")
        guard digit < 10 else { return nil }
        value = value * 10 + UInt64(digit)  // 19 digits cannot overflow UInt64
    }
    return value < 1 << 63 ? value : nil
}

/// The 16 bytes of an 8-4-4-4-12 hex UUID whose letters are all lowercase or all uppercase
/// (so the string can be rebuilt exactly), and whether they are uppercase.
func canonicalUUID(_ text: String) -> (bytes: (UInt64, UInt64), uppercase: Bool)? {
    let utf8 = text.utf8
    guard utf8.count == 36 else { return nil }
    var high: UInt64 = 0
    var low: UInt64 = 0
    var sawLower = false
    var sawUpper = false
    var nibbles = 0
    for (index, byte) in utf8.enumerated() {
        if index == 8 || index == 13 || index == 18 || index == 23 {
            guard byte == UInt8(ascii: "-") else { return nil }
            continue
        }
        let nibble: UInt8
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"):
            nibble = byte - UInt8(ascii: "a") + 10
            sawLower = true
        case UInt8(ascii: "A")...UInt8(ascii: "F"):
            nibble = byte - UInt8(ascii: "A") + 10
            sawUpper = true
        default: return nil
        }
        if nibbles < 16 { high = high << 4 | UInt64(nibble) } else { low = low << 4 | UInt64(nibble) }
        nibbles += 1
    }
    guard !(sawLower && sawUpper) else { return nil }
    // Big-endian in the record: the bytes appear in the order of the hex digits.
    return ((high.bigEndian, low.bigEndian), sawUpper)
}

/// Writes one section's fields in bit order, then puts its presence bitmap in front of them.
struct SectionWriter<Field: LayoutField> {
    private let start: Int
    private let effectiveAt: Int64
    private var bits: UInt64 = 0
    private var nextField = 0

    init(startingAt start: Int, effectiveAt: Int64) {
        self.start = start
        self.effectiveAt = effectiveAt
    }

    /// Records whether `field` is present; every field must be marked in bit order.
    mutating func mark(_ field: Field, present: Bool) {
        assert(field.rawValue == nextField, "every field must be marked, in bit order")
        nextField += 1
        if present { bits |= field.bit }
    }

    mutating func text(_ value: String?, _ field: Field, into buffer: inout [UInt8]) {
        mark(field, present: value != nil)
        guard let value else { return }
        guard case .text(let encoding) = Field.kind(field) else { preconditionFailure("\(field) is not text") }
        buffer.appendText(value, encoding)
    }

    mutating func int(_ value: Int?, _ field: Field, into buffer: inout [UInt8]) {
        mark(field, present: value != nil)
        if let value { buffer.appendZigzag(Int64(value)) }
    }

    mutating func int64(_ value: Int64?, _ field: Field, into buffer: inout [UInt8]) {
        mark(field, present: value != nil)
        if let value { buffer.appendZigzag(value) }
    }

    /// Dates are written relative to the event's `effectiveAt` (wrapping, so any Int64 fits):
    /// the dates of one fact sit close together, and small differences make short varints.
    mutating func date(_ value: Int64?, _ field: Field, into buffer: inout [UInt8]) {
        mark(field, present: value != nil)
        if let value { buffer.appendZigzag(value &- effectiveAt) }
    }

    mutating func bool(_ value: Bool?, _ field: Field, into buffer: inout [UInt8]) {
        mark(field, present: value != nil)
        if let value { buffer.append(value ? 1 : 0) }
    }

    /// Inserts the bitmap at the section's start.
    func finish(into buffer: inout [UInt8]) {
        assert(nextField == Field.last.rawValue + 1, "every field must be marked")
        var bitmap: [UInt8] = []
        bitmap.appendVarint(bits)
        buffer.insert(contentsOf: bitmap, at: start)
    }
}
