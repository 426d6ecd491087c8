extension JSONWriter {
    public mutating func value(_ value: JSON) {
        switch value {
        case .null: null()
        case .bool(let value): bool(value)
        case .integer(let value): integer(value)
        case .unsigned(let value): unsigned(value)
        case .double(let value): double(value)
        case .string(let value): string(value)
        case .array(let values):
            beginArray()
            for value in values { self.value(value) }
            endArray()
        case .object(let members):
            beginObject()
            for (name, value) in members {
                self.name(name)
                self.value(value)
            }
            endObject()
        }
    }
}
