/// A text field of an `EventView`, read in place: a decimal identifier as its number, a UUID
/// as its 16 bytes, a known Apple value as a vocabulary index, anything else as a slice of the
/// record's UTF-8. Nothing is copied or allocated until you ask for `string`.
///
/// A `TextRef` points into the bytes the view was made from: use it only while they live.
public struct TextRef {
    @usableFromInline
    enum Form: Equatable {
        case utf8, number, lowercaseUUID, uppercaseUUID
        case vocabulary(UInt8)
    }

    @usableFromInline let form: Form
    @usableFromInline let pointer: UnsafeRawPointer?
    /// The UTF-8 byte count, the number, or the vocabulary index, depending on `form`.
    @usableFromInline let value: UInt64

    init(form: Form, pointer: UnsafeRawPointer?, value: UInt64) {
        self.form = form
        self.pointer = pointer
        self.value = value
    }

    /// The identifier as a number, when it was stored as one (a canonical decimal below 2^63;
    /// "0042" and non-numeric ids are stored as text and give nil).
    @inlinable
    public var number: UInt64? {
        form == .number ? value : nil
    }

    /// The UUID's 128 bits (first hex digit most significant), when it was stored as a UUID.
    public var uuid: UInt128? {
        guard form == .lowercaseUUID || form == .uppercaseUUID, let pointer else { return nil }
        let high = UInt64(bigEndian: pointer.loadUnaligned(as: UInt64.self))
        let low = UInt64(bigEndian: pointer.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        return UInt128(high) << 64 | UInt128(low)
    }

    /// The UTF-8 in place when the text is stored as text (not as a number, UUID or known value).
    @inlinable
    public var storedUTF8: UnsafeRawBufferPointer? {
        form == .utf8 ? UnsafeRawBufferPointer(start: pointer, count: Int(value)) : nil
    }

    /// A number below 4096 naming the known Apple value this text is (the same value gives the
    /// same number), or nil when it is not one: lets a caller cache per value.
    @inlinable
    public var knownValueCode: Int? {
        guard case .vocabulary(let vocabulary) = form, value < 256 else { return nil }
        return Int(vocabulary) << 8 | Int(value)
    }

    /// The text as a `String` (allocates unless it is short or a known Apple value).
    public var string: String {
        switch form {
        case .utf8:
            return String(decoding: UnsafeRawBufferPointer(start: pointer, count: Int(value)), as: UTF8.self)
        case .number, .lowercaseUUID, .uppercaseUUID:
            return String(unsafeUninitializedCapacity: 36) { render(into: $0) }
        case .vocabulary(let vocabulary):
            return Vocabulary(rawValue: vocabulary)!.values[Int(value)]
        }
    }

    /// Calls `body` with the text's UTF-8 bytes; numbers and UUIDs are rendered on the stack.
    public func withUTF8<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        switch form {
        case .utf8:
            return try body(UnsafeRawBufferPointer(start: pointer, count: Int(value)))
        case .vocabulary:
            var string = self.string
            return try string.withUTF8 { try body(UnsafeRawBufferPointer($0)) }
        case .number, .lowercaseUUID, .uppercaseUUID:
            return try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 36) { scratch in
                let count = render(into: scratch)
                return try body(UnsafeRawBufferPointer(start: scratch.baseAddress, count: count))
            }
        }
    }

    /// Writes a number or UUID as ASCII into `scratch` (at least 36 bytes); returns the length.
    private func render(into scratch: UnsafeMutableBufferPointer<UInt8>) -> Int {
        if form == .number {
            var length = 1
            var probe = value
            while probe >= 10 {
                probe /= 10
                length += 1
            }
            var digits = value
            for index in stride(from: length - 1, through: 0, by: -1) {
                scratch[index] = UInt8(ascii: "0") + UInt8(digits % 10)
                digits /= 10
            }
            return length
        }
        let hex = form == .uppercaseUUID ? Self.upperHex : Self.lowerHex
        var output = 0
        for index in 0..<16 {
            if index == 4 || index == 6 || index == 8 || index == 10 {
                scratch[output] = UInt8(ascii: "-")
                output += 1
            }
            let byte = pointer!.load(fromByteOffset: index, as: UInt8.self)
            scratch[output] = hex[Int(byte >> 4)]
            scratch[output + 1] = hex[Int(byte & 0x0f)]
            output += 2
        }
        return output
    }

    private static let lowerHex: [UInt8] = Array("0123456789abcdef".utf8)
    private static let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Whether the text equals `other`, without allocating.
    public static func == (lhs: TextRef, rhs: String) -> Bool {
        switch lhs.form {
        case .number:
            return canonicalDecimal(rhs) == lhs.value
        case .vocabulary:
            return lhs.string == rhs
        case .utf8, .lowercaseUUID, .uppercaseUUID:
            var rhs = rhs
            return rhs.withUTF8 { other in lhs.withUTF8 { mine in mine.elementsEqual(other) } }
        }
    }
}

extension TextRef: Equatable {
    /// Two refs are equal when their texts are equal, whatever form each was stored in.
    public static func == (lhs: TextRef, rhs: TextRef) -> Bool {
        if lhs.form == rhs.form, lhs.form == .number || lhs.form.isVocabulary { return lhs.value == rhs.value }
        return lhs.withUTF8 { mine in rhs.withUTF8 { other in mine.elementsEqual(other) } }
    }
}

extension TextRef.Form {
    var isVocabulary: Bool {
        if case .vocabulary = self { true } else { false }
    }
}

extension TextRef: CustomStringConvertible {
    public var description: String { string }
}
