import SubledgerCore

/// Where a checked record lies in memory, and the instant its dates are relative to.
struct RecordBytes {
    let base: UnsafeRawPointer
    let end: UnsafeRawPointer
    let effectiveAt: Int64
}

/// The present fields of one section of a checked record: which are there and where each
/// starts. Values are decoded on access without bounds checks: the reader checked them all.
///
/// Start offsets are cached in a byte each, as 1 + the distance from the section's first field,
/// 0 meaning "not cached": a field more than 254 bytes in (only after long strings) is found
/// by stepping over the fields before it.
struct PresentFields<Field: LayoutField, Offsets: FieldOffsets> {
    let bits: UInt64
    /// Offset of the first field (just past the bitmap).
    let firstField: Int
    var offsets = Offsets()

    init(bits: UInt64, firstField: Int) {
        self.bits = bits
        self.firstField = firstField
    }

    @inline(__always)
    func contains(_ field: Field) -> Bool {
        bits & field.bit != 0
    }

    @inline(__always)
    mutating func note(_ field: Int, at offset: Int) {
        let distance = offset &- firstField &+ 1
        if distance <= Int(UInt8.max) { offsets[field] = UInt8(truncatingIfNeeded: distance) }
    }

    @inline(__always)
    private func start(_ field: Field, in record: RecordBytes) -> UnsafeRawPointer {
        let cached = offsets[field.rawValue]
        return cached != 0 ? record.base + (firstField &+ Int(cached) &- 1) : locate(field, in: record)
    }

    /// Steps over the present fields before `field`.
    @inline(never)
    private func locate(_ field: Field, in record: RecordBytes) -> UnsafeRawPointer {
        var pointer = record.base + firstField
        var before = bits & (field.bit &- 1)
        while before != 0 {
            switch Field.kinds[before.trailingZeroBitCount] {
            case .integer:
                pointer += Varint.unchecked(at: pointer, end: record.end).length
            case .bool:
                pointer += 1
            case .text(let encoding):
                let (tag, length) = Varint.unchecked(at: pointer, end: record.end)
                pointer += length
                if tag & 1 == 0 {
                    pointer += Int(tag &>> 1)
                } else if encoding == .uuid {
                    pointer += 16
                }
            case .section:
                preconditionFailure("nested sections come after every field")
            }
            before &= before &- 1
        }
        return pointer
    }

    @inline(__always)
    func int64(_ field: Field, in record: RecordBytes) -> Int64? {
        contains(field) ? Varint.unzigzag(Varint.unchecked(at: start(field, in: record), end: record.end).value) : nil
    }

    @inline(__always)
    func int(_ field: Field, in record: RecordBytes) -> Int? {
        int64(field, in: record).map { Int(truncatingIfNeeded: $0) }
    }

    @inline(__always)
    func date(_ field: Field, in record: RecordBytes) -> Int64? {
        int64(field, in: record).map { record.effectiveAt &+ $0 }
    }

    @inline(__always)
    func bool(_ field: Field, in record: RecordBytes) -> Bool? {
        contains(field) ? start(field, in: record).load(as: UInt8.self) == 1 : nil
    }

    @inline(__always)
    func text(_ field: Field, in record: RecordBytes) -> TextRef? {
        guard contains(field), case .text(let encoding) = Field.kind(field) else { return nil }
        let pointer = start(field, in: record)
        let (tag, length) = Varint.unchecked(at: pointer, end: record.end)
        let payload = tag &>> 1
        let next = pointer + length
        if tag & 1 == 0 { return TextRef(form: .utf8, pointer: next, value: payload) }
        switch encoding {
        case .identifier, .plain:  // .plain never has an odd tag: the reader refused it
            return TextRef(form: .number, pointer: nil, value: payload)
        case .uuid:
            return TextRef(form: payload == 0 ? .lowercaseUUID : .uppercaseUUID, pointer: next, value: 16)
        case .vocabulary(let vocabulary):
            return TextRef(form: .vocabulary(vocabulary.rawValue), pointer: nil, value: payload)
        }
    }
}

/// Fixed-size storage for a section's cached field offsets, indexed by field number. (Tuples
/// rather than SIMD vectors: storing to a SIMD lane at a variable index spills the vector.)
protocol FieldOffsets {
    associatedtype Storage
    var storage: Storage { get set }
    init()
}

extension FieldOffsets {
    @inline(__always)
    subscript(index: Int) -> UInt8 {
        get { withUnsafeBytes(of: storage) { $0[index] } }
        set { withUnsafeMutableBytes(of: &storage) { $0[index] = newValue } }
    }
}

struct FourOffsets: FieldOffsets {
    var storage: UInt32 = 0
}

struct EightOffsets: FieldOffsets {
    var storage: UInt64 = 0
}

struct ThirtyTwoOffsets: FieldOffsets {
    var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
}
