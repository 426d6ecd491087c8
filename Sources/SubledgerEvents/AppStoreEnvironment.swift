/// The App Store environment a payload was signed for. Open: a value Apple adds later is kept
/// as its raw string.
public struct AppStoreEnvironment: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public static let production = AppStoreEnvironment(rawValue: "Production")
    public static let sandbox = AppStoreEnvironment(rawValue: "Sandbox")
    public static let xcode = AppStoreEnvironment(rawValue: "Xcode")
    public static let localTesting = AppStoreEnvironment(rawValue: "LocalTesting")

    /// The environments a ledger accepts (`init --environment` takes no other).
    public static let known: [AppStoreEnvironment] = [.production, .sandbox, .xcode, .localTesting]

    /// The known environment `name` names in any case (`sandbox` is `Sandbox`), as every command
    /// and route takes it; nil for a name that is none.
    public static func known(named name: some StringProtocol) -> AppStoreEnvironment? {
        known.first { $0.rawValue.lowercased() == name.lowercased() }
    }

    public var description: String { rawValue }
}
