/// The App Store environment a payload was signed for.
///
/// Apple: [environment](https://developer.apple.com/documentation/appstoreservernotifications/environment)
///
/// Open: a value Apple adds later decodes as-is, keeps its raw value, and equals none of the
/// constants below.
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

    /// Whether the environment's data is signed on a developer's machine (Xcode's StoreKit
    /// testing, StoreKit local testing), by one self-signed certificate rather than Apple's chain.
    public var isSignedLocally: Bool { self == .xcode || self == .localTesting }

    public var description: String { rawValue }
}
