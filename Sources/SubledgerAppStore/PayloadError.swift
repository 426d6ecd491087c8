/// Why a payload could not be decoded, and where.
///
/// `offset` is the byte offset into the payload JSON (the base64url-decoded JWS payload, not the
/// JWS text) at which the problem was found. `field` is the dotted path of the member being decoded
/// (`data.status`, `commitmentInfo.commitmentPrice`), or `nil` when the problem is outside any
/// member. A payload that fails here should be rejected as invalid; retrying will not help.
public struct PayloadError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// The bytes are not valid JSON: truncated, unterminated, bad escapes, invalid UTF-8,
        /// trailing data after the top-level object.
        case malformedJSON
        /// Valid JSON, but a known field holds the wrong JSON type (a string where a number belongs).
        case typeMismatch
        /// A number does not fit in a signed 64-bit integer.
        case numberOutOfRange
        /// The same member name appears twice in one object.
        case duplicateField
        /// Arrays and objects are nested more than 16 levels deep.
        case nestingTooDeep
    }

    public var kind: Kind
    public var offset: Int
    public var field: String?
    /// What was wrong, without the location (see ``description`` for the full sentence).
    public var message: String

    public init(_ kind: Kind, at offset: Int, field: String? = nil, _ message: String) {
        self.kind = kind
        self.offset = offset
        self.field = field
        self.message = message
    }

    public var description: String {
        var text = "invalid App Store payload at byte \(offset)"
        if let field {
            text += " in field '\(field)'"
        }
        return text + ": " + message
    }

    /// The same error, attributed to `name` (the innermost field keeps its place in the path).
    func inField(_ name: String) -> PayloadError {
        var copy = self
        copy.field = field.map { name + "." + $0 } ?? name
        return copy
    }
}
