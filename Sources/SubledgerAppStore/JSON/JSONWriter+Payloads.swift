import SubledgerCore

/// The payload encoders' members: absent fields write nothing, names are static ASCII.
extension JSONWriter {
    /// The JSON document of `object`; `capacity` is a guess at its size in bytes.
    static func document<Object: JSONObjectEncodable>(_ object: Object, capacity: Int = 1024) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity)
        writer.object(object)
        return writer.bytes
    }

    private mutating func object<Object: JSONObjectEncodable>(_ object: Object) {
        beginObject()
        object.encodeMembers(into: &self)
        endObject()
    }

    mutating func member(_ name: StaticString, _ value: String?) {
        guard let value else { return }
        self.name(name)
        string(value)
    }

    mutating func member(_ name: StaticString, _ value: Int64?) {
        guard let value else { return }
        self.name(name)
        integer(value)
    }

    mutating func member(_ name: StaticString, _ value: Int?) {
        member(name, value.map { Int64($0) })
    }

    mutating func member(_ name: StaticString, _ value: Bool?) {
        guard let value else { return }
        self.name(name)
        bool(value)
    }

    mutating func member(_ name: StaticString, _ values: [String]?) {
        guard let values else { return }
        self.name(name)
        beginArray()
        for value in values {
            string(value)
        }
        endArray()
    }

    mutating func member<Value: OpenStringEnum>(_ name: StaticString, _ value: Value?) {
        member(name, value?.rawValue)
    }

    mutating func member<Value: OpenIntEnum>(_ name: StaticString, _ value: Value?) {
        member(name, value?.rawValue)
    }

    mutating func member<Object: JSONObjectEncodable>(_ name: StaticString, _ object: Object?) {
        guard let object else { return }
        self.name(name)
        self.object(object)
    }

    /// Members the decoder did not know, written back exactly as they were received.
    mutating func unknownMembers(_ fields: [UnknownField]) {
        for field in fields {
            name(field.name)
            raw(field.rawJSON.utf8)
        }
    }
}
