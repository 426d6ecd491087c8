/// Where a query's parameters come from. Every parameter has one name, the HTTP API's
/// (`asOf`, `atPosition`, `byProduct`); HTTP query strings and command-line flags adapt onto it,
/// so both are parsed and validated by the same code.
public protocol QueryParameterSource {
    /// The parameter's value; `""` for a switch given without a value (`--raw`, `?raw`); nil
    /// when absent.
    func value(_ name: String) -> String?
    /// Every value given for a parameter that may repeat, in order.
    func values(_ name: String) -> [String]
    /// How the person asking wrote the parameter, for error messages: `atPosition` over HTTP,
    /// `--at-position` on the command line.
    func spelling(_ name: String) -> String
}

extension QueryParameterSource {
    public func values(_ name: String) -> [String] {
        value(name).map { [$0] } ?? []
    }

    public func spelling(_ name: String) -> String { name }

    /// What the command line and the HTTP routes say of a parameter that takes one value, given
    /// more than once (the last had won silently).
    public static func givenMoreThanOnce(_ spelling: String, _ values: [String]) -> String {
        "\(spelling) is given \(values.count == 2 ? "twice" : "\(values.count) times") (\(values.map { "'\($0)'" }.joined(separator: ", "))); give it once"
    }
}

extension Dictionary: QueryParameterSource where Key == String, Value == String {
    public func value(_ name: String) -> String? { self[name] }
}
