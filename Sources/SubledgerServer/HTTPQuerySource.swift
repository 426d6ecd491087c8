import SubledgerHTTP
import SubledgerProjections

/// A request's query string as query parameters; a name given twice counts with its last value.
struct HTTPQuerySource: QueryParameterSource {
    let parameters: QueryParameters

    init(_ parameters: QueryParameters) {
        self.parameters = parameters
    }

    func value(_ name: String) -> String? {
        parameters.items.last { $0.name == name }?.value
    }

    func values(_ name: String) -> [String] {
        parameters.items.filter { $0.name == name }.map(\.value)
    }
}
