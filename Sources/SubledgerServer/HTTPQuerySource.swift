import SubledgerHTTP
import SubledgerProjections

/// A request's query string as query parameters.
///
/// It notes every name a query's parser asks for, so that a name none asked for is refused
/// rather than ignored. The commands' spelling of a name (`at-position`) is its camelCase one
/// (`atPosition`): the contract gives the report routes "the same query parameters as the
/// commands", and `?at-position=1000`, ignored, once answered with today's figures.
final class HTTPQuerySource: QueryParameterSource {
    let parameters: QueryParameters
    /// A name as the request wrote it, by the name it is read as, for error messages.
    private let written: [String: String]
    private var asked: Set<String> = []

    init(_ parameters: QueryParameters) {
        self.parameters = QueryParameters(parameters.items.map { .init(name: Self.camelCased($0.name), value: $0.value) })
        written = Dictionary(parameters.items.map { (Self.camelCased($0.name), $0.name) }, uniquingKeysWith: { first, _ in first })
    }

    /// `by-product` as `byProduct`; a name without a hyphen, or with one at an end or doubled
    /// (`-format`, which is no command's spelling of `format`), as it is.
    static func camelCased(_ name: String) -> String {
        let pieces = name.split(separator: "-", omittingEmptySubsequences: false)
        guard pieces.count > 1, pieces.allSatisfy({ !$0.isEmpty }) else { return name }
        return pieces.enumerated().map { $0 == 0 ? String($1) : $1.prefix(1).uppercased() + $1.dropFirst() }.joined()
    }

    func spelling(_ name: String) -> String {
        written[name] ?? name
    }

    func value(_ name: String) -> String? {
        asked.insert(name)
        return parameters.items.last { $0.name == name }?.value
    }

    func values(_ name: String) -> [String] {
        asked.insert(name)
        return parameters.items.filter { $0.name == name }.map(\.value)
    }

    /// Throws for the first name given more than once that takes one value (all but `lists`),
    /// as the command line refuses a flag given twice: the last had won silently. Checked before
    /// anything is read, since a repeated `atPosition` folded the whole log first.
    func requireOnce(except lists: Set<String> = EventQuery.listNames) throws(QueryError) {
        var seen = Set<String>()
        for item in parameters.items where !lists.contains(item.name) && !seen.insert(item.name).inserted {
            // The code a bad value of it gets.
            let code = item.name == "atPosition" ? "invalid_position" : "invalid_\(item.name)"
            throw QueryError(kind: .badParameter, code: code,
                             detail: Self.givenMoreThanOnce(spelling(item.name), parameters.items.filter { $0.name == item.name }.map(\.value)))
        }
    }

    /// Throws for the first name given that no parser asked for and is not in `routeNames` (a
    /// route's own, such as a report's `format`).
    func requireEveryNameAsked(besides routeNames: Set<String> = [], except notTaken: Set<String> = []) throws(QueryError) {
        let known = asked.union(routeNames).subtracting(notTaken)
        guard let name = parameters.items.map(\.name).first(where: { !known.contains($0) }) else { return }
        throw QueryError(kind: .badParameter, code: "unknown_parameter", detail: "\(spelling(name)) is not a parameter of this route; it takes \(known.sorted().joined(separator: ", "))")
    }
}
