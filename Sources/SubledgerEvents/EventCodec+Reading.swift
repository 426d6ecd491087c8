// Primitive readers of the v1 layout over borrowed bytes. Every read is bounds-checked and
// throws; nothing here allocates.

struct ByteReader {
    let base: UnsafeRawPointer
    let count: Int
    private(set) var offset: Int

    init(base: UnsafeRawPointer, count: Int, offset: Int) {
        self.base = base
        self.count = count
        self.offset = offset
    }

    @inline(__always)
    mutating func byte() throws(EventDecodingError) -> UInt8 {
        guard offset < count else { throw EventDecodingError(.truncated, at: offset) }
        defer { offset &+= 1 }
        return base.load(fromByteOffset: offset, as: UInt8.self)
    }

    /// An unsigned LEB128 varint; eight bytes are looked at in one load where the record has
    /// them.
    @inline(__always)
    mutating func varint() throws(EventDecodingError) -> UInt64 {
        if count &- offset >= 8 {
            let word = UInt64(littleEndian: (base + offset).loadUnaligned(as: UInt64.self))
            if word & 0x80 == 0 {
                offset &+= 1
                return word & 0x7f
            }
            if let (value, length) = shortVarint(word) {
                guard (word &>> UInt64((length &- 1) &* 8)) & 0xff != 0 else {
                    throw EventDecodingError(.malformedVarint, at: offset)
                }
                offset &+= length
                return value
            }
        }
        return try varintByteByByte()
    }

    /// For the last bytes of a record and varints over 8 bytes. The canonical form is the
    /// shortest: a final byte of 0 after others is rejected, so each event has one encoding.
    private mutating func varintByteByByte() throws(EventDecodingError) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < count else { throw EventDecodingError(.truncated, at: start) }
            let byte = base.load(fromByteOffset: offset, as: UInt8.self)
            offset &+= 1
            if shift == 63, byte > 1 { throw EventDecodingError(.malformedVarint, at: start) }
            result |= UInt64(byte & 0x7f) &<< shift
            if byte < 0x80 {
                if byte == 0, shift > 0 { throw EventDecodingError(.malformedVarint, at: start) }
                return result
            }
            shift &+= 7
        }
    }

    @inline(__always)
    mutating func zigzag() throws(EventDecodingError) -> Int64 {
        unzigzag(try varint())
    }

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

/// The value and length of a varint of at most 8 bytes held in `word` (little-endian), or nil
/// when it is longer. Branch-free: the continuation bits locate the end, then the 7-bit groups
/// are packed together pairwise.
@inline(__always)
func shortVarint(_ word: UInt64) -> (value: UInt64, length: Int)? {
    let ends = ~word & 0x8080_8080_8080_8080
    guard ends != 0 else { return nil }
    let endBit = ends.trailingZeroBitCount
    let length = endBit &>> 3 &+ 1
    var x = word & 0x7f7f_7f7f_7f7f_7f7f & (UInt64.max &>> UInt64(63 &- endBit))
    x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) &>> 1)
    x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) &>> 2)
    x = (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) &>> 4)
    return (x, length)
}

/// Reads a varint the view has already checked, returning its value and length: no form
/// checks, and the 8-byte load only where the record has 8 bytes left.
@inline(__always)
func checkedVarint(at pointer: UnsafeRawPointer, end: UnsafeRawPointer) -> (value: UInt64, length: Int) {
    if end - pointer >= 8, let short = shortVarint(UInt64(littleEndian: pointer.loadUnaligned(as: UInt64.self))) {
        return short
    }
    var result: UInt64 = 0
    var shift: UInt64 = 0
    var index = 0
    while true {
        let byte = pointer.load(fromByteOffset: index, as: UInt8.self)
        result |= UInt64(byte & 0x7f) &<< shift
        index &+= 1
        if byte < 0x80 { return (result, index) }
        shift &+= 7
    }
}

@inline(__always)
func unzigzag(_ raw: UInt64) -> Int64 {
    Int64(bitPattern: (raw &>> 1) ^ (0 &- (raw & 1)))
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
