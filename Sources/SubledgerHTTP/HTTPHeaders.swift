/// Header fields in the order received or added; names compare case-insensitively.
public struct HTTPHeaders: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Field: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field]

    public init() {
        fields = []
    }

    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { Field(name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    public var count: Int { fields.count }
    public var isEmpty: Bool { fields.isEmpty }

    /// The first value of the field `name`, or nil.
    public subscript(name: String) -> String? {
        fields.first { HTTPSyntax.equalsIgnoringCase($0.name, name) }?.value
    }

    /// Every value of the field `name`, in order.
    public func values(for name: String) -> [String] {
        fields.filter { HTTPSyntax.equalsIgnoringCase($0.name, name) }.map(\.value)
    }

    public func contains(_ name: String) -> Bool {
        fields.contains { HTTPSyntax.equalsIgnoringCase($0.name, name) }
    }

    /// Appends a field line, keeping any existing ones of the same name.
    public mutating func add(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field `name` with one line.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    /// Never kept by a shared cache, never read as another type than it says: an answer that
    /// holds customers' data, or echoes what was asked.
    public mutating func markPrivate() {
        set("Cache-Control", "no-store")
        set("X-Content-Type-Options", "nosniff")
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { HTTPSyntax.equalsIgnoringCase($0.name, name) }
    }

    /// True when a list-valued field (such as `Connection`) has `token` among its elements.
    public func hasToken(_ token: String, in name: String) -> Bool {
        values(for: name).contains { value in
            HTTPSyntax.listElements(value).contains { HTTPSyntax.equalsIgnoringCase($0, token) }
        }
    }

    public func makeIterator() -> IndexingIterator<[Field]> {
        fields.makeIterator()
    }
}
