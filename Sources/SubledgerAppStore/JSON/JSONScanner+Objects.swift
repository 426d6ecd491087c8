/// A payload object decoded member by member: known members into typed properties, the rest into
/// `unknownFields`.
protocol JSONObjectDecodable {
    associatedtype Field: RawRepresentable<String>, CaseIterable, Sendable

    static var fields: FieldTable<Field> { get }

    init()

    var unknownFields: [UnknownField] { get set }

    /// Reads the value of `field` (not null) at the scanner's position.
    mutating func decode(_ field: Field, from scanner: inout JSONScanner) throws(PayloadError)
}

/// The member names of one payload type, with a bit per field to catch duplicates.
struct FieldTable<Field: RawRepresentable<String> & CaseIterable & Sendable>: Sendable {
    struct Entry: Sendable {
        var field: Field
        var bit: UInt64
    }

    let entries: ByteStringTable<Entry>

    init() {
        precondition(Field.allCases.count <= 64, "a FieldTable tracks at most 64 fields")
        entries = ByteStringTable(
            Field.allCases.enumerated().map { (key: $1.rawValue, value: Entry(field: $1, bit: 1 << UInt64($0))) })
    }
}

extension JSONScanner {
    /// Decodes a whole payload document: one object, nothing but whitespace around it.
    static func decodeDocument<Payload: JSONObjectDecodable>(
        _ bytes: UnsafeRawBufferPointer, as _: Payload.Type
    ) throws(PayloadError) -> Payload {
        var scanner = JSONScanner(bytes)
        scanner.skipWhitespace()
        let payload = try scanner.decodeObject(Payload.self)
        try scanner.expectEndOfInput()
        return payload
    }

    mutating func decodeObject<Object: JSONObjectDecodable>(_: Object.Type) throws(PayloadError) -> Object {
        let fields = Object.fields
        var object = Object()
        var seen: UInt64 = 0
        try enterObject()
        while let name = try nextMember() {
            guard let entry = lookup(name, in: fields.entries) else {
                try captureUnknownMember(name, into: &object.unknownFields)
                continue
            }
            guard seen & entry.bit == 0 else {
                throw PayloadError(
                    .duplicateField, at: name.start - 1, field: entry.field.rawValue, "member appears more than once")
            }
            seen |= entry.bit
            if try consumeNull() {
                continue
            }
            do {
                try object.decode(entry.field, from: &self)
            } catch {
                throw error.inField(entry.field.rawValue)
            }
        }
        return object
    }

    private mutating func captureUnknownMember(_ nameSpan: StringSpan, into fields: inout [UnknownField])
        throws(PayloadError)
    {
        let name = string(of: nameSpan)
        guard !fields.contains(where: { $0.name == name }) else {
            throw PayloadError(.duplicateField, at: nameSpan.start - 1, field: name, "member appears more than once")
        }
        do {
            fields.append(UnknownField(name: name, rawJSON: try captureValue()))
        } catch {
            throw error.inField(name)
        }
    }
}
