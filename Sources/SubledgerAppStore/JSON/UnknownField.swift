/// A member the decoder has no typed field for, kept verbatim so nothing Apple sends is lost.
public struct UnknownField: Hashable, Sendable {
    /// The member name, escapes resolved.
    public var name: String
    /// The member's value exactly as it appeared in the payload (valid JSON, original spacing).
    public var rawJSON: String

    public init(name: String, rawJSON: String) {
        self.name = name
        self.rawJSON = rawJSON
    }
}
