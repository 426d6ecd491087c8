/// The decoded `name=value` pairs of a query string, in order; names compare exactly.
public struct QueryParameters: Sendable, Equatable, Sequence {
    public struct Item: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var items: [Item]

    public init(_ items: [Item] = []) {
        self.items = items
    }

    /// Decodes an `application/x-www-form-urlencoded` query: pairs split on `&`, percent escapes
    /// decoded, `+` read as a space; a pair without `=` has an empty value.
    /// Throws a 400 ``HTTPError`` for a malformed escape or text that is not UTF-8.
    public init(decoding query: some StringProtocol) throws(HTTPError) {
        var items: [Item] = []
        for pair in query.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = pair.firstIndex(of: UInt8(ascii: "="))
            let rawName = pair[..<(equals ?? pair.endIndex)]
            let rawValue = equals.map { pair[pair.index(after: $0)...] } ?? pair[pair.endIndex...]
            guard let name = PercentEncoding.decode(rawName, plusAsSpace: true),
                  let value = PercentEncoding.decode(rawValue, plusAsSpace: true) else {
                throw HTTPError(.badRequest, code: "invalid_query",
                                detail: "the query string has a malformed percent escape or is not UTF-8")
            }
            items.append(Item(name: name, value: value))
        }
        self.items = items
    }

    public var isEmpty: Bool { items.isEmpty }

    /// The first value of `name`, or nil.
    public subscript(name: String) -> String? {
        items.first { $0.name == name }?.value
    }

    /// Every value of `name`, in order.
    public func values(for name: String) -> [String] {
        items.filter { $0.name == name }.map(\.value)
    }

    public func makeIterator() -> IndexingIterator<[Item]> {
        items.makeIterator()
    }
}
