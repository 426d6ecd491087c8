import SubledgerCore

// Readers of the v1 layout over borrowed bytes. Every read is bounds-checked and throws;
// nothing here allocates.

extension EventDecodingError: ByteReaderError {
    public static func truncated(at offset: Int) -> EventDecodingError {
        EventDecodingError(.truncated, at: offset)
    }

    public static func malformedVarint(at offset: Int) -> EventDecodingError {
        EventDecodingError(.malformedVarint, at: offset)
    }
}

/// The v1 layout's sections over the shared reader.
extension ByteReader where Failure == EventDecodingError {
    /// A section's presence bitmap, rejecting bits the section does not define.
    @inline(__always)
    mutating func presence<F: LayoutField>(_: F.Type) throws(EventDecodingError) -> UInt64 {
        let start = offset
        let bits = try varint()
        guard bits & ~F.definedBits == 0 else {
            throw EventDecodingError(.undefinedFields(section: F.sectionName, bits: bits & ~F.definedBits), at: start)
        }
        return bits
    }

    /// Reads a section's bitmap, then its fields.
    @inline(__always)
    mutating func section<F: LayoutField, Offsets: FieldOffsets>(
        _: F.Type, _: Offsets.Type
    ) throws(EventDecodingError) -> PresentFields<F, Offsets> {
        try fields(F.self, Offsets.self, bits: try presence(F.self))
    }

    /// Checks each present field up to the first nested section, noting where it starts. The
    /// caller reads nested sections, which come last.
    @inline(__always)
    mutating func fields<F: LayoutField, Offsets: FieldOffsets>(
        _: F.Type, _: Offsets.Type, bits: UInt64
    ) throws(EventDecodingError) -> PresentFields<F, Offsets> {
        var fields = PresentFields<F, Offsets>(bits: bits, firstField: offset)
        let kinds = F.kinds
        var remaining = bits
        while remaining != 0 {
            let index = remaining.trailingZeroBitCount
            let start = offset
            switch kinds[index] {
            case .integer:
                _ = try varint()
            case .bool:
                guard try byte() <= 1 else {
                    throw EventDecodingError(.invalidValue(field: F.fieldName(index)), at: start)
                }
            case .text(let encoding):
                try skipText(encoding, index, F.self)
            case .section:
                return fields
            }
            fields.note(index, at: start)
            remaining &= remaining &- 1
        }
        return fields
    }

    /// Checks and steps over a text field: an even tag `2n` is n bytes of UTF-8, an odd tag
    /// `2k + 1` a compact form the field's encoding must allow.
    @inline(__always)
    mutating func skipText<F: LayoutField>(
        _ encoding: TextEncoding, _ field: Int, _: F.Type
    ) throws(EventDecodingError) {
        let start = offset
        let tag = try varint()
        let payload = tag &>> 1
        if tag & 1 == 0 {
            guard payload <= UInt64(count &- offset) else { throw EventDecodingError(.truncated, at: start) }
            let length = Int(payload)
            guard isValidUTF8(base + offset, length) else {
                throw EventDecodingError(.invalidUTF8(field: F.fieldName(field)), at: start)
            }
            offset &+= length
            return
        }
        switch encoding {
        case .plain:
            throw EventDecodingError(.invalidValue(field: F.fieldName(field)), at: start)
        case .identifier:
            return
        case .uuid:
            guard payload <= 1 else { throw EventDecodingError(.invalidValue(field: F.fieldName(field)), at: start) }
            guard count &- offset >= 16 else { throw EventDecodingError(.truncated, at: start) }
            offset &+= 16
        case .vocabulary(let vocabulary):
            guard payload < UInt64(vocabulary.count) else {
                throw EventDecodingError(.invalidValue(field: F.fieldName(field)), at: start)
            }
        }
    }
}

extension LayoutField {
    static func fieldName(_ field: Int) -> String {
        "\(sectionName).\(Self(rawValue: field).map { "\($0)" } ?? "\(field)")"
    }
}

extension Vocabulary {
    /// `values.count` without touching the array: the view checks indexes on the hot path. A
    /// test keeps the two equal.
    var count: Int {
        switch self {
        case .notificationType: 23
        case .subtype: 17
        case .environment: 4
        case .consumptionRequestReason: 5
        case .transactionType: 4
        case .ownership: 2
        case .offerDiscountType: 4
        case .revocationType: 3
        case .transactionReason: 2
        case .billingPlanType: 2
        case .currency: 44
        case .storefront: 45
        }
    }
}

/// Validates UTF-8 without allocating: an 8-bytes-at-a-time ASCII check first, the standard
/// library's validation for the rest.
@inline(__always)
func isValidUTF8(_ pointer: UnsafeRawPointer, _ count: Int) -> Bool {
    var index = 0
    while index &+ 8 <= count {
        if pointer.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
            return validateNonASCII(pointer, count)
        }
        index &+= 8
    }
    while index < count {
        if pointer.load(fromByteOffset: index, as: UInt8.self) >= 0x80 {
            return validateNonASCII(pointer, count)
        }
        index &+= 1
    }
    return true
}

private func validateNonASCII(_ pointer: UnsafeRawPointer, _ count: Int) -> Bool {
    let bytes = UnsafeBufferPointer(start: pointer.assumingMemoryBound(to: UInt8.self), count: count)
    var iterator = bytes.makeIterator()
    var parser = Unicode.UTF8.ForwardParser()
    while true {
        switch parser.parseScalar(from: &iterator) {
        case .valid: continue
        case .emptyInput: return true
        case .error: return false
        }
    }
}
