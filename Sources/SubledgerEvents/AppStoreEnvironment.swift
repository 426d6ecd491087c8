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

    public var description: String { rawValue }
}
