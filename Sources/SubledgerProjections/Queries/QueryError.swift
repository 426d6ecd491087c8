/// A read request that cannot be answered as asked: a bad parameter (HTTP 400, exit 2) or
/// nothing found (HTTP 404, exit 1). `code` is the API's error code, `detail` says what to pass.
public struct QueryError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable { case badParameter, notFound }
    public var kind: Kind
    public var code: String
    public var detail: String

    public init(kind: Kind, code: String, detail: String) {
        self.kind = kind
        self.code = code
        self.detail = detail
    }

    public var description: String { detail }
}
